import math

import numpy as np


def check(mod):
    for n in (0, 1, 1000):
        a = np.arange(n, dtype=np.float64) * 1.25
        ref = np.sqrt(a) + np.floor(a * 0.5)
        mod.roots(a)
        assert np.array_equal(a, ref), n
    assert mod.consts(5) == (24, math.pi)
    a = np.array([3.0, -1.0, 2.5, 7.0])
    mod.sort_desc(a)
    assert a.tolist() == [7.0, 3.0, 2.5, -1.0]
    mod.sort_desc(np.zeros(0))
