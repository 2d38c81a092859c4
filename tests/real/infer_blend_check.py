import numpy as np


def check(mod):
    rng = np.random.default_rng(31)
    out = []
    for shape in ((1, 1), (17, 5), (300, 301)):
        a = rng.random(shape); b = rng.random(shape)
        got = mod.blend(a, b, 0.3, 1.7)
        ref = np.clip((0.3 * a + (1.0 - 0.3) * b) * 1.7, 0.0, 1.0)
        assert got.dtype == np.float64 and np.array_equal(got, ref)
        out.append(got)
    try:
        mod.blend(np.zeros((2, 2)), np.zeros((2, 3)), 0.5, 1.0)
    except ValueError as e:
        assert "differ" in str(e)
    else:
        raise AssertionError("no ValueError")
    v = rng.random(1000); w = rng.random(1000)
    t = mod.weighted_total(v, w)
    assert abs(t - (v * w).sum() / w.sum()) < 1e-12
    assert mod.weighted_total(v[:0], w[:0]) == 0.0
    out.append(t)
    return out
