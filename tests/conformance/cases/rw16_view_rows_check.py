import numpy as np


def check(mod):
    m = np.arange(6.0).reshape(2, 3)
    assert mod.rows(m) == [(3, 1.0, [0.0, 1.0, 2.0]), (3, 4.0, [3.0, 4.0, 5.0])]
    assert mod.rows(m[:, ::2]) == [(2, 2.0, [0.0, 2.0]), (2, 5.0, [3.0, 5.0])]
    g = np.arange(20.0).reshape(5, 4)
    full = sum(g[i, 0] * 2 + g[i, 3] for i in (0, 2, 4))
    assert mod.typed(g, 100.0) == (-full, 16.0)
    assert mod.typed(g, 8.0) == (0 * 2 + 3.0, 8.0)
    c = np.arange(24, dtype=np.intc).reshape(3, 4, 2)
    t = 0
    for i in range(3):
        t = t * 10 + int(c[i, 1, 0])
    assert mod.deep(c) == t
    assert mod.count(np.zeros((4, 2))) == 4
    try:
        mod.count()
    except TypeError as e:
        assert 'is not iterable' in str(e)
    else:
        raise AssertionError('no TypeError')
