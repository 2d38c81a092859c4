import numpy as np

def check(mod):
    rng = np.random.default_rng(1)
    out = []
    for dt, tol in ((np.float32, 2e-5), (np.float64, 1e-12)):
        for n in (0, 7, 4096, 300_001):
            x = rng.standard_normal(n).astype(dt)
            y = rng.standard_normal(n).astype(dt)
            want = y + dt(0.75) * x
            mod.axpy(x, y, 0.75)
            assert np.allclose(y, want, rtol=tol, atol=tol), (dt, n)
            out.append((y.copy(), mod.dot(x, y), mod.nrm2_sq(x[::2])))
            x64, y64 = x.astype(np.float64), y.astype(np.float64)
            assert np.isclose(mod.dot(x, y), x64 @ y64, rtol=1e-9, atol=1e-9), (dt, n)
            assert np.isclose(mod.nrm2_sq(x[::2]), float(np.sum(x64[::2] ** 2)), rtol=1e-5), (dt, n)
        assert mod.precision(np.zeros(1, dt)) == ("single" if dt == np.float32 else "double")
    try:
        mod.dot(np.zeros(3, np.int64), np.zeros(3, np.int64))
    except TypeError as e:
        assert "No matching signature found" in str(e)
    else:
        raise AssertionError
    try:
        mod.axpy(np.zeros(3), np.zeros(4), 1.0)
    except ValueError as e:
        assert "differ" in str(e)
    else:
        raise AssertionError
    return out
