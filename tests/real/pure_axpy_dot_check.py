import numpy as np


def check(mod):
    rng = np.random.default_rng(21)
    out = []
    for n in (0, 1, 7, 100000):
        x, y = rng.standard_normal(n), rng.standard_normal(n)
        got = mod.axpy(2.5, x, y)
        assert np.array_equal(got, 2.5 * x + y)   # one multiply, one add: exact
        d = mod.dot(x, y)
        assert abs(d - float(np.dot(x, y))) <= 1e-9 * max(1.0, float(np.abs(x * y).sum()))
        out.append((got, d))
    d = mod.dot(np.arange(10.0)[::-2], np.ones(5))
    assert d == 25.0
    try:
        mod.axpy(1.0, np.ones(3), np.ones(4))
    except ValueError as e:
        assert str(e) == "length mismatch: 3 != 4", e
    else:
        raise AssertionError("mismatch accepted")
    return out
