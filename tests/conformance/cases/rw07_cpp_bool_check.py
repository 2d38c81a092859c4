import numpy as np


def check(mod):
    x = np.array([0.5, 2.5, -1.0, 3.0])
    assert mod.any_above(x, 2.0) == (True, False)
    r = mod.any_above(x, 5.0)
    assert r == (False, True) and type(r[0]) is bool
    out = np.zeros(4, dtype=np.uint8)
    mod.mark(x, 1.0, out)
    assert out.tolist() == [0, 1, 0, 1]
