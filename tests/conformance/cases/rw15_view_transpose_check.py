import numpy as np


def check(mod):
    a = np.arange(12.0).reshape(3, 4)
    t = a.T
    s = sum(t[i, j] * (i + 1) - t[i, j] * j for i in range(4) for j in range(3))
    assert mod.weighted(a) == (s, 4, 3, a[1, 0], 4)
    b = np.arange(24.0).reshape(2, 3, 4)
    assert mod.three(b) == (b[0, 1, 3], 4, 2, b[1, 2, 3])
    assert mod.one(np.arange(3.0)) == (1.0, 3)
    m = np.arange(12.0).reshape(3, 4)
    assert mod.objects(m) == (m.T.tolist(), m[::2, 1:].T.tolist())
