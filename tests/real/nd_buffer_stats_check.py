import numpy as np


def check(mod):
    rng = np.random.default_rng(37)
    X = rng.normal(size=(400, 13)) * np.arange(1, 14)
    Z, sd = mod.zscore(X)
    assert np.allclose(sd, X.std(0) + 1e-12, rtol=1e-12)
    assert np.allclose(Z, (X - X.mean(0)) / sd, rtol=1e-12)
    Xs = X[::2]
    Z2, _ = mod.zscore(Xs)
    assert np.allclose(Z2, (Xs - Xs.mean(0)) / (Xs.std(0) + 1e-12), rtol=1e-10)
    C = mod.covariance(X)
    assert np.allclose(C, np.cov(X, rowvar=False), rtol=1e-10)
    try:
        mod.covariance(np.asfortranarray(X))
    except ValueError as e:
        assert "C-contiguous" in str(e)
    else:
        raise AssertionError("no ValueError")
    try:
        mod.zscore(X.astype(np.float32))
    except ValueError as e:
        assert "dtype mismatch" in str(e), e
    else:
        raise AssertionError("no ValueError")
    x = rng.normal(size=1000)
    y = mod.smooth(x)
    xp = np.concatenate([x[2:0:-1], x, x[-2:-4:-1]])
    want = np.convolve(xp, mod.WEIGHTS[::-1], mode="valid")
    assert np.allclose(y, want, rtol=1e-12, atol=1e-14)
    return [Z, sd, Z2, C, y]
