import math
import numpy as np


def trap(f, a, b, n):
    h = (b - a) / n
    s = 0.5 * (f(a) + f(b))
    for k in range(1, n):
        s += f(a + k * h)
    return s * h


def check(m):
    lo = np.array([0.0, 0.5, -1.0]); hi = np.array([1.0, 2.0, 1.5])
    fs = [lambda x: x * x, lambda x: x * x * x, math.sin, math.exp]
    for w, f in enumerate(fs):
        got = m.integrate(lo, hi, w)
        ref = [trap(f, a, b, 64) for a, b in zip(lo, hi)]
        assert np.array_equal(got, ref), (w, got, ref)
    assert m.integrate(lo, hi, 1, 3)[0] == trap(fs[1], 0.0, 1.0, 3)
    try:
        m.integrate(lo, hi, 7)
    except ValueError as e:
        assert "no function 7" in str(e)
    else:
        raise AssertionError("no ValueError")
    x = np.array([1.0, 4.0]); y = np.array([9.0, 0.0])
    t, same, differ = m.combine(x, y)
    assert t == math.sqrt(0.25 + 6.75) + math.sqrt(1.0) and same is True and differ is False
    assert np.array_equal(m.filled(4, 2.5), [2.5, 3.5, 4.5, 5.5])
    assert m.nested(1.5) == ((1.5 * 1.5) * (1.5 * 1.5), (1.5 ** 3) ** 3, math.exp(1.0))
    z = np.array([1 + 2j, -3 + 0.5j])
    acc, c0 = m.conj_sum(z)
    assert acc == (1 - 2j) * (1 + 2j) + (-3 - 0.5j) * (-3 + 0.5j) and c0 == 1 - 2j
    rng = np.random.default_rng(23)
    for shape in ((1, 1), (9, 4), (40, 7)):
        a = rng.standard_normal(shape)
        assert np.array_equal(m.row_medians(a), np.median(a, axis=1))
