import numpy as np

def check(mod):
    rng = np.random.default_rng(7)
    for dt in (np.float32, np.float64):
        a = rng.random((301, 17)).astype(dt)
        assert np.allclose(mod.colsum(a), a.astype(np.float64).sum(axis=0), rtol=1e-6), dt
        v = rng.random(100).astype(dt)
        s, is_double = mod.weighted(v, 0.5)
        assert is_double == (dt == np.float64), dt
        assert np.isclose(s, float(v.astype(np.float64).sum()) * 0.5, rtol=1e-6), dt
    for bad in (np.ones(3, np.int64), np.ones((2, 2))):
        try:
            mod.weighted(bad, 1.0)
        except TypeError as e:
            assert "No matching signature found" in str(e), e
        else:
            raise AssertionError(bad)
