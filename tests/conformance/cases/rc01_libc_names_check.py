import math

import numpy as np


def check(mod):
    for n in (0, 1, 1000):
        out = np.empty(n)
        mod.phase(out, 3.0)
        ref = np.sin(2 * math.pi * 3.0 * np.arange(n) / max(n, 1)) * math.e
        assert np.allclose(out, ref, rtol=1e-12, atol=1e-12), n
    assert mod.absdiff(3, 10, -2.5) == (7, 2.5)
    assert mod.absdiff(-4, -4, 0.0) == (0, 0.0)
    for n in (0, 1, 4, 5, 100):
        a = np.arange(n, dtype=np.float64) * 0.5
        assert mod.cumsum_grow(a) == list(np.cumsum(a)), n
    assert mod.raw_count(10) == sum(k * k for k in range(10))
    assert mod.raw_count(0) == 0
    assert mod.prefix(b"hello", b"help", 3) == (True, 5)
    assert mod.prefix(b"hello", b"help", 4) == (False, 5)
