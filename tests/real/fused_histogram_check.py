import numpy as np

def check(mod):
    rng = np.random.default_rng(2)
    out = []
    for dt in (np.int16, np.int32, np.int64):
        v = rng.integers(-3, 70, 20_000).astype(dt)
        got = mod.bincount(v, 64)
        want = np.bincount(np.clip(v, 0, 63).astype(np.int64), minlength=64)
        assert got.dtype == np.int64 and (got == want).all(), dt
        out.append((got, mod.label_sum(v[::3])))
        assert mod.label_sum(v[::3]) == int(v[::3].astype(np.int64).sum()), dt
    for bad in (np.zeros(4, np.uint8), np.zeros(4, np.float64)):
        try:
            mod.label_sum(bad)
        except TypeError as e:
            assert "No matching signature found" in str(e)
        else:
            raise AssertionError(bad.dtype)
    return out
