import numpy as np
def check(mod):
    rng = np.random.default_rng(12)
    out = []
    for h, w in ((1, 1), (5, 9), (120, 77)):
        rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        g = mod.to_gray(rgb)
        ref = np.clip(np.floor(0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2] + 0.5), 0, 255)
        assert g.dtype == np.uint8 and np.abs(g.astype(int) - ref).max() <= 1
        out.append(g)
        if w >= 5:
            b = mod.blur_rows(g)
            out.append(b)
            out.append(mod.blur_rows(g, 1, 0.7))
        gm = mod.gamma_mean(g)
        assert np.isclose(gm, ((g / 255.0) ** 2.2).mean())
        out.append(gm)
    out.append(np.asarray(mod.gaussian_kernel(3, 1.5)))
    v = rng.random(100)
    assert np.allclose(mod.sqrt_all(v), np.sqrt(v))
    v[57] = -1
    try:
        mod.sqrt_all(v)
    except ValueError as e:
        out.append(str(e))
    else:
        raise AssertionError("no ValueError")
    return out
