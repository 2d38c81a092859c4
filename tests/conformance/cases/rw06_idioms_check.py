import numpy as np


def check(mod):
    rng = np.random.default_rng(31)
    a = rng.integers(-50, 50, 1001).astype(np.float64)
    b = rng.integers(-50, 50, 1001).astype(np.float64)
    assert mod.dot(a, b) == float(np.dot(a, b))  # integers: exact in any order

    x = rng.random((5, 7))
    r = mod.sums(x)
    expect = [sum(row) for row in x.tolist()]
    assert type(r) is np.ndarray and np.array_equal(r, expect)

    whole, col = mod.bases(x)
    assert whole is x and col is x

    data = rng.integers(0, 256, 20000).astype(np.uint8)
    for nt in (1, 3):
        counts, down = mod.histogram(data, nt)
        assert counts == np.bincount(data, minlength=256).tolist() and down == 990
