import numpy as np


def check(mod):
    rng = np.random.default_rng(31)
    img = rng.random((123, 77), dtype=np.float32)
    out = np.empty_like(img)
    mod.box3(img, out)
    want = img.copy()
    acc = np.zeros((121, 75), np.float32)
    for di in (0, 1, 2):
        for dj in (0, 1, 2):
            acc = acc + img[di:di + 121, dj:dj + 75]
    want[1:-1, 1:-1] = (acc / np.float32(9.0)).astype(np.float32)
    assert np.allclose(out, want, rtol=1e-6)
    d = rng.normal(size=(60, 50))
    res = [out]
    for v in (d, d[::-1, ::2], d.T):
        s = np.empty(v.shape)
        mod.sobel_mag2(v, s)
        gx = (v[:-2, 2:] + 2 * v[1:-1, 2:] + v[2:, 2:] - v[:-2, :-2] - 2 * v[1:-1, :-2] - v[2:, :-2])
        gy = (v[2:, :-2] + 2 * v[2:, 1:-1] + v[2:, 2:] - v[:-2, :-2] - 2 * v[:-2, 1:-1] - v[:-2, 2:])
        w = np.zeros(v.shape); w[1:-1, 1:-1] = gx * gx + gy * gy
        assert np.allclose(s, w, rtol=1e-12, atol=1e-12)
        res.append(s)
    a = rng.normal(size=(10, 12)); a0 = a.copy()
    mod.rows_copy_shift(a, 5)
    w = np.zeros_like(a0); w[:, 5:] = a0[:, :7]
    assert np.array_equal(a, w)
    res.append(a)
    u = rng.integers(0, 256, (40, 41)).astype(np.uint8)
    o = np.empty_like(u)
    mod.threshold(u, 128, o)
    assert (o == np.where(u > 128, 255, 0)).all()
    res.append(o)
    return res
