import numpy as np


def julia_ref(w, h, c, maxit):
    out = np.zeros((h, w), dtype=np.intc)
    for y in range(h):
        for x in range(w):
            z = (-1.5 + 3.0 * x / w) + (-1.0 + 2.0 * y / h) * 1j
            k = 0
            while k < maxit and z.real * z.real + z.imag * z.imag <= 4.0:
                z = z * z + c
                k += 1
            out[y, x] = k
    return out


def check(mod):
    res = []
    for w, h, c, it in ((1, 1, 0j, 5), (50, 30, complex(-0.8, 0.156), 80), (64, 48, complex(0.285, 0.01), 120)):
        got = mod.julia(w, h, c, it)
        assert got.shape == (h, w)
        # the products are C's (ac - bd, ad + bc): exactly Python's
        assert np.array_equal(got, julia_ref(w, h, c, it))
        res.append(got)

    nw = mod.newton(64, 48)
    assert nw.shape == (48, 64) and set(np.unique(nw)) == {0, 1, 2}
    # the positive real axis converges to 1
    assert (nw[23:25, 40:] == 0).all()
    # conjugate points find conjugate roots: rows mirrored swap roots 1 and 2
    flip = nw[::-1]
    assert ((flip == 0) == (nw == 0)).mean() > 0.98 and ((flip == 1) == (nw == 2)).mean() > 0.98
    res.append(nw)

    rng = np.random.default_rng(7)
    spec = np.fft.fft(rng.standard_normal(4096))
    before = spec.copy()
    total = mod.whiten(spec, 1e-3)
    assert np.isclose(total, np.sum(np.abs(before) ** 2), rtol=1e-9)
    mag = np.abs(before)
    keep = mag >= 1e-3
    assert np.allclose(spec[keep], before[keep] / mag[keep], rtol=1e-12)
    assert (spec[~keep] == 0).all()
    res.append((total, spec))
    return res
