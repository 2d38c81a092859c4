import numpy as np


def check(mod):
    rng = np.random.default_rng(9)
    out = []
    for shape in ((1, 1), (10, 3), (2000, 33)):
        X = rng.standard_normal(shape)
        X[0] = 0.0
        got = mod.normalize_rows(X)
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        ref = np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)
        assert got is not X and got.flags.c_contiguous
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-15)
        out.append(got)
    for bad in (np.ones(3), np.ones((2, 2), np.float32)):
        try:
            mod.normalize_rows(bad)
        except TypeError as e:
            assert "expected a 2-D float64 array" in str(e)
        else:
            raise AssertionError("accepted %r" % bad.dtype)
    try:
        mod.normalize_rows([[1.0]])
    except TypeError as e:
        assert "has incorrect type" in str(e)
    else:
        raise AssertionError("list accepted")
    return out
