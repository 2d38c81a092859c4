import numpy as np


def check(mod):
    rng = np.random.default_rng(23)
    res = []
    for dt in (np.uint8, np.int64, np.float32, np.float64):
        if dt in (np.uint8, np.int64):
            x = rng.integers(0, 200, (64, 33)).astype(dt)
        else:
            x = rng.normal(size=(64, 33)).astype(dt)
        out = np.empty(x.shape, np.uint8)
        lo, hi = mod.quantize(x, out)
        assert lo == x.min() and hi == x.max(), dt
        scale = 255.0 / (float(hi) - float(lo))
        if dt in (np.uint8, np.int64):
            d = (x - x.min()).astype(np.float64)
        else:
            d = (x - x.min()).astype(np.float64)   # pixel_t - pixel_t computed in pixel_t
        want = np.floor(np.clip(d * scale + 0.5, 0, 255)).astype(np.uint8)
        assert (np.abs(out.astype(int) - want.astype(int)) <= (1 if dt == np.float32 else 0)).all(), dt
        res.append((out, lo, hi))
        flat = x.ravel()
        st = np.empty(flat.size)
        mean, sd = mod.standardize(flat, st)
        assert np.isclose(mean, flat.astype(np.float64).mean(), rtol=1e-9)
        assert np.isclose(sd, flat.astype(np.float64).std(), rtol=1e-9)
        assert np.allclose(st, (flat - mean) / sd, rtol=1e-6, atol=1e-6)
        t = mod.total(flat[::3])
        if dt == np.uint8:
            assert t == int(flat[::3].astype(np.int64).sum()) % 256
        elif dt == np.int64:
            assert t == int(flat[::3].sum())
        else:
            assert np.isclose(t, flat[::3].astype(np.float64).sum(), rtol=1e-4)
        res.append(t if dt in (np.uint8, np.int64) else None)
    a = rng.integers(0, 256, 999).astype(np.uint8); b = rng.integers(0, 256, 999).astype(np.uint8)
    o = np.empty_like(a)
    mod.saturate_add(a, b, o, 255.0)
    assert (o == np.minimum(a.astype(int) + b, 255)).all()
    a = rng.normal(size=999).astype(np.float32); b = rng.normal(size=999).astype(np.float32)
    o = np.empty_like(a)
    mod.saturate_add(a, b, o, 1.0)
    assert np.array_equal(o, np.minimum(a.astype(np.float64) + b, 1.0).astype(np.float32))
    res.append(o)
    return res
