import numpy as np


def check(mod):
    rng = np.random.default_rng(5)
    for shape in ((1, 1), (33, 17), (400, 300)):
        a = rng.random(shape)
        assert np.isclose(mod.sumsq(a), (a * a).sum(), rtol=1e-11)

    x = rng.random(10007, dtype=np.float32)
    out = np.full(x.shape, 7, np.uint8)
    mod.threshold(x, np.float32(0.25), out)
    assert np.array_equal(out, (x > np.float32(0.25)).astype(np.uint8))

    got = mod.widths()
    want = (-128, -32768, -2**31, -2**63, 0, 0, 2**32 - 1, 2**64 - 1,
            float(np.float32(0.1)), 0.1, 1 + 2j, 8)
    assert got == want, got

    v = rng.integers(0, 1000, 5000)
    assert np.array_equal(mod.hist(v, 7), np.bincount(v % 7, minlength=7))
