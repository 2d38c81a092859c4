import numpy as np


def check(mod):
    x = np.array([[3., 1., 2.], [0., 5., -1.]])
    v = np.zeros(2)
    i = np.zeros(2, dtype=np.intp)
    mod.row_argmin(x, v, i)
    assert v.tolist() == [1.0, -1.0] and i.tolist() == [1, 2]
    assert mod.pair(7, 2) == ((3, 1), 4, 2, (1.5, 2))
    assert mod.pair(-7, 2) == ((-4, 1), -3, 2, (1.5, 2))
    assert mod.minmax(np.array([2., -3., 9.])) == (-3.0, 9.0)
    assert mod.take((4, 2.5)) == (8, 2.5) and mod.take([1, 2]) == (2, 2.0)
    try:
        mod.take((1,))
    except TypeError:
        pass
    else:
        raise AssertionError("a 1-tuple became a (int, double)")
    try:
        mod.pair(1, 0)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("no ZeroDivisionError")
    x = np.random.default_rng(1).random((300, 7))
    idx = np.zeros(300, dtype=np.intp)
    mod.row_argmin_par(x, idx)
    assert (idx == x.argmin(1)).all()
