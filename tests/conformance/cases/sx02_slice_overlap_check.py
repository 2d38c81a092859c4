import numpy as np


def check(mod):
    rng = np.random.default_rng(182)
    for n in (0, 1, 2, 100_001):
        a = rng.random(n)
        e = a.copy()
        e[1:] = e[:-1] + 1.0
        mod.shift(a)
        assert np.array_equal(a, e), n
        e = a.copy()
        e[::-1] = e[:] * 2.0
        mod.mirror(a)
        assert np.array_equal(a, e), n
        e = a * 3.0
        mod.scale(a)
        assert np.array_equal(a, e), n
    for x in (rng.random((257, 257)), np.asfortranarray(rng.random((64, 64))), rng.random((90, 91))[:, 1:]):
        e = x.T.copy()
        mod.transpose(x)
        assert np.array_equal(x, e)
    xi = rng.integers(-1000, 1000, (130, 70)).astype(np.intc)
    e = xi.copy()
    e[1:, :] = e[:-1, :] + e[1:, :]
    mod.smear(xi)
    assert np.array_equal(xi, e)
    x = rng.random((50, 60))
    e = x.copy()
    e[:, 1:] += e[:, :-1].copy()
    mod.accumulate(x)
    assert np.array_equal(x, e)
