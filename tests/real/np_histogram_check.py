import numpy as np


def check(mod):
    rng = np.random.default_rng(2)
    out = []
    for n, bins in ((0, 4), (1000, 10), (200003, 64)):
        x = rng.normal(0.0, 1.5, n)
        got = mod.histogram(x, -3.0, 3.0, bins)
        ref, _ = np.histogram(x, bins=bins, range=(-3.0, 3.0))
        assert got.dtype == np.int64 and np.array_equal(got, ref), n
        out.append(got)
    return out
