import numpy as np


def check(mod):
    m = np.zeros((3, 4))
    mod.fill(m, 1.5)
    assert (m == 1.5).all()
    m = np.arange(12.).reshape(3, 4)
    o = np.zeros(3)
    mod.first_col(m, o)
    assert o.tolist() == [0.0, 4.0, 8.0]
    a = np.ones((2, 3, 4))
    mod.scale(a, 2.0)
    e = np.ones((2, 3, 4))
    e[..., 1:] = 2.0
    e[0, ...] = 0
    assert np.array_equal(a, e)
    o = np.zeros(3)
    mod.rowsum(m, o)
    assert o.tolist() == [1.0, 9.0, 17.0]
    x, t = mod.obj(np.arange(6).reshape(2, 3))
    assert x.tolist() == [0, 3] and t is True
