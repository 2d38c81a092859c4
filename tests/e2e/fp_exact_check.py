import numpy as np


def check(mod):
    rng = np.random.default_rng(8)
    n = 100_000
    b, c = rng.standard_normal(n), rng.standard_normal(n)
    a = np.empty(n)
    s = 1.0 / 3.0
    mod.triad(a, b, c, s)
    assert np.array_equal(a, b + s * c), "triad: %d elements differ" % np.count_nonzero(a != b + s * c)

    f = [rng.standard_normal(n).astype(np.float32) for _ in range(4)]
    out = np.empty(n, dtype=np.float32)
    mod.dot2(out, *f)
    want = f[0] * f[1] + f[2] * f[3]
    assert np.array_equal(out, want), "dot2: %d elements differ" % np.count_nonzero(out != want)

    x = rng.standard_normal((300, 500))
    out = np.empty_like(x)
    mod.horner(out, x)
    want = ((0.5 * x - 1.25) * x + 3.0) * x - 0.75
    assert np.array_equal(out, want), "horner: %d elements differ" % np.count_nonzero(out != want)
