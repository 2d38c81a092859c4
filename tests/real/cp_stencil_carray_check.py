import numpy as np


def check(mod):
    rng = np.random.default_rng(8)
    out = []
    for h, w in ((3, 3), (40, 57), (256, 300)):
        img = rng.random((h, w))
        got = mod.sharpen(img)
        ref = np.zeros_like(img)
        ref[1:-1, 1:-1] = (5 * img[1:-1, 1:-1] - img[:-2, 1:-1] - img[2:, 1:-1]
                           - img[1:-1, :-2] - img[1:-1, 2:])
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)
        med = mod.median3x3(img)
        win = np.stack([img[a:a + h - 2, b:b + w - 2] for a in range(3) for b in range(3)])
        refm = np.zeros_like(img)
        refm[1:-1, 1:-1] = np.median(win, axis=0)
        assert np.array_equal(med, refm)
        out += [got, med]
    return out
