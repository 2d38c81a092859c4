import numpy as np


def check(mod):
    rng = np.random.default_rng(17)
    a = rng.random((20, 9, 3, 11), dtype=np.float32)
    res = []
    for vol in (a[::2, :, 1], a[::-3, 2:, 0, ::2], np.transpose(a[:, 1, :, :], (2, 0, 1))):
        out = np.empty(vol.shape[0])
        mod.plane_mean(vol, out)
        want = vol.astype(np.float64).sum((1, 2)) / (vol.shape[1] * vol.shape[2])
        assert np.allclose(out, want, rtol=1e-12), vol.shape
        res.append(out)
    f = np.asfortranarray(rng.normal(size=(77, 31)))
    f0 = f.copy()
    cn = np.empty(31)
    mod.fortran_colnorm(f, cn)
    assert np.allclose(cn, (f0 ** 2).sum(0), rtol=1e-12)
    assert np.allclose(f, f0 / (1 + cn), rtol=1e-12)
    res += [cn, f]
    img = rng.normal(size=(40, 60))
    for v in (img, img[::-1, ::3], img.T):
        out = np.empty(v.shape)
        mod.edge_diff(v, out)
        assert np.array_equal(out, v - np.roll(v, 1, axis=1))
        res.append(out)
    try:
        mod.edge_diff(np.zeros((3, 0)), np.zeros((3, 0)))
    except IndexError as e:
        res.append(str(e))
    else:
        raise AssertionError("no IndexError")
    x = rng.uniform(1, 2, 1000)
    tr = np.empty(1000)
    mod.tail_ratio(x, tr, 5)
    assert np.array_equal(tr, x / np.roll(x, 5))
    res.append(tr)
    v = rng.normal(size=(15, 8, 4))
    best, rm = mod.sub_block(v, 2)
    assert best == v[::2, 1:, 2].max() and (rm == v[::2, 1:, 2].max(1)).all()
    res.append((best, rm))
    return res
