import numpy as np


def check(mod):
    a = np.array([1.0, -2.0, np.inf, -np.inf, np.nan, 0.0, -0.0] * 30)
    out = np.empty(a.size, np.int64)
    mod.classify(a, out)
    want = np.where(np.isinf(a), np.sign(a) * 10, 0) + np.isnan(a) * 100 + np.isfinite(a)
    assert (out == want).all(), out[:7]
    mod.classify_f(a.astype(np.float32), out)
    assert (out == np.where(np.isinf(a), np.sign(a) * 3, 0)).all(), out[:7]
    r = mod.as_objects(-np.inf)
    assert r == (-1, False, False, True) and [type(v) for v in r] == [int, bool, bool, bool], r
    r = mod.as_objects(np.nan)
    assert r[:3] == (0, True, False) and type(r[3]) is bool, r
