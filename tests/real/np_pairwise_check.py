import numpy as np


def check(mod):
    rng = np.random.default_rng(11)
    out = []
    for n, d in ((1, 4), (17, 3), (150, 16)):
        X = rng.standard_normal((n, d)).astype(np.float32)
        D = mod.pairwise_distances(X)
        X64 = X.astype(np.float64)
        ref = np.sqrt(((X64[:, None, :] - X64[None, :, :]) ** 2).sum(-1))
        assert D.dtype == np.float64 and np.allclose(D, ref, rtol=1e-12, atol=1e-12)
        out.append(D)
    try:
        mod.pairwise_distances(None)
    except TypeError as e:
        assert "Argument 'X' has incorrect type (expected numpy.ndarray, got NoneType)" in str(e), str(e)
    else:
        raise AssertionError("None accepted")
    return out
