import numpy as np


def check(mod):
    rng = np.random.default_rng(8)
    img = rng.integers(0, 256, 300_001).astype(np.uint8)
    res = []
    for nb in (256, 64, 16, 5):
        h = mod.hist_gil(img, nb)
        shift = 0
        while (256 >> shift) > nb:
            shift += 1
        want = np.bincount(img >> shift, minlength=nb)
        assert h.dtype == np.int64 and (h == want).all(), nb
        res.append(h)
    x = rng.normal(size=100_000)
    h = mod.hist_lock(x, -2.0, 2.0, 40)
    sel = x[(x >= -2) & (x < 2)]
    k = np.minimum(((sel + 2.0) * (40 / 4.0)).astype(np.int64), 39)
    assert (h == np.bincount(k, minlength=40)).all()
    res.append(h)
    m = np.round(rng.normal(size=(300, 90)), 1)
    mv = m[:, ::2]
    out = np.empty(mv.shape); rl = np.empty(mv.shape, np.int64)
    mod.cumsum_rows(mv, out, rl)
    assert np.allclose(out, np.cumsum(mv, 1), rtol=1e-12, atol=1e-12)
    want = np.zeros(mv.shape, np.int64)
    for j in range(mv.shape[1]):
        want[:, j] = np.where(mv[:, j] > 0, (want[:, j - 1] if j else 0) + 1, 0)
    assert (rl == want).all()
    res += [out, rl]
    cnt = rng.integers(0, 9, 10_007).astype(np.intc)
    for nch in (1, 7, 64):
        off = np.empty_like(cnt)
        tot = mod.exclusive_scan(cnt, off, nch)
        assert tot == cnt.sum() and (off == np.concatenate([[0], np.cumsum(cnt)[:-1]])).all()
        res.append((tot, off))
    return res
