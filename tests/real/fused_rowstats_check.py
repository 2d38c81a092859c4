import numpy as np

def check(mod):
    rng = np.random.default_rng(3)
    out = []
    for dt, tol in ((np.float32, 1e-4), (np.float64, 1e-11)):
        a = rng.standard_normal((513, 77)).astype(dt) * 3 + 1
        mean, std = mod.standardize(a)
        assert mean.dtype == dt and std.dtype == dt
        out.append((mean, std))
        assert np.allclose(mean, a.astype(np.float64).mean(axis=1), rtol=tol, atol=tol), dt
        assert np.allclose(std, a.astype(np.float64).std(axis=1), rtol=tol, atol=tol), dt
    try:
        mod.standardize(np.zeros((2, 2), np.float64, order="F"))
    except ValueError as e:
        assert "contiguous" in str(e), e
    else:
        raise AssertionError
    return out
