import math
import numpy as np


def check(mod):
    rng = np.random.default_rng(29)
    a = rng.random((37, 53))
    out = np.zeros_like(a)
    mod.scale_rows(a, 2.5, out)
    assert np.array_equal(out, a * 2.5)

    x = rng.random(10_007)
    for nt in (1, 3):
        t = mod.shifted_norm(x, 0.6, nt)
        ref = float(np.sum((x - 0.3) * (x - 0.3) / math.sqrt(len(x))))
        assert math.isclose(t, ref, rel_tol=1e-12), (t, ref)
    assert mod.shifted_norm(x[:0], 0.6, 2) == 0.0

    v = rng.integers(-100, 100, 5000).astype(np.intc)
    assert mod.count_above(v, 20) == int(np.sum(v > 40))
    assert mod.count_above(v[:0], 20) == 0

    o = np.zeros_like(x)
    mod.by_thread(x, o)
    assert np.array_equal(o, x)
    o[:] = 0
    mod.scratch(x, o)
    assert np.array_equal(o, x * 3)
