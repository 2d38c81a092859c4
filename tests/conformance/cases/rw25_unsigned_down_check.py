import numpy as np


def check(m):
    c = np.array([1.0, -2.0, 0.5, 3.0])
    acc, i = m.horner(c, 1.5)
    assert acc == ((3.0 * 1.5 + 0.5) * 1.5 - 2.0) * 1.5 + 1.0 and i == 0
    assert m.horner(c[:0], 2.0) == (0.0, 0)
    assert m.horner(c[:1], 2.0) == (1.0, 0)
    a, b, cc, u = m.small_types(5, 7)
    ra = 0
    for k in range(5, -1, -1):
        ra = ra * 2 + k
    rb = 0
    for k in range(7, 0, -2):
        rb = rb * 3 + k
    assert (a, b, cc, u) == (ra, rb, 0, 1)
    assert m.small_types(0, 0)[:2] == (0, 0)
    x = np.random.default_rng(25).random((33, 10))
    assert np.allclose(m.suffix_sums(x), np.cumsum(x[:, ::-1], axis=1)[:, ::-1], rtol=1e-15, atol=0)
