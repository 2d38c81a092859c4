import numpy as np


def ref(h, w, maxit):
    img = np.zeros((h, w), dtype=np.int32)
    for y in range(h):
        for x in range(w):
            cr, ci = -2.0 + 3.0 * x / w, -1.25 + 2.5 * y / h
            zr = zi = 0.0
            k = 0
            while k < maxit:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                if zr * zr + zi * zi > 4.0:
                    break
                k += 1
            img[y, x] = k
    return img


def check(mod):
    out = []
    for h, w, it in ((1, 1, 5), (24, 37, 50), (60, 80, 200)):
        got = mod.mandel(h, w, it)
        assert got.dtype == np.int32 and got.shape == (h, w)
        assert np.array_equal(got, ref(h, w, it))
        out.append(got)
    return out
