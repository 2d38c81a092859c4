import numpy as np


def check(m):
    rng = np.random.default_rng(20)
    assert m.ipow(3, 4) == 81 and m.ipow(-2, 3) == -8 and m.ipow(5, 0) == 1
    a = rng.random(50)
    assert m.call_checked(a) is True
    a[17] = -1.0
    try:
        m.call_checked(a)
    except ValueError as e:
        assert "negative at 17" in str(e), str(e)
    else:
        raise AssertionError("no ValueError from a cdef function")

    n = 1001
    ia = rng.integers(-10**9, 10**9, n)
    fa = rng.standard_normal(n) * 100
    for d, fd in ((7, 2.5), (-7, -2.5), (1, 1.0)):
        q, r = np.zeros(n, np.int64), np.zeros(n, np.int64)
        fq, fr = np.zeros(n), np.zeros(n)
        m.py_divmod(ia, d, q, r, fa, fd, fq, fr)
        assert np.array_equal(q, ia // d) and np.array_equal(r, ia % d), d
        assert np.allclose(fq, fa // fd) and np.allclose(fr, fa % fd), fd
    try:
        m.py_divmod(ia, 0, q, r, fa, 1.0, fq, fr)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("no ZeroDivisionError for // 0")

    x = rng.random(10_000)
    out = np.zeros_like(x)
    m.apply_scale(x, out)
    assert np.allclose(out, 2 * x + (2 * x + 1) + (3 * x + 0.5))

    g = rng.random((9, 7))
    s, r0, r1 = m.every_other_row_sum(g)
    assert (r0, r1) == g[::2, 1:].shape and np.isclose(s, g[::2, 1:].sum())
    gf = np.asfortranarray(g)
    assert np.isclose(m.every_other_row_sum(gf)[0], g[::2, 1:].sum())

    v = np.arange(1000, dtype=np.float64)
    # after a break, lastprivate values are unspecified (Cython keeps the
    # value from before the loop, cyocl the breaking iteration's): either
    assert m.find_first(v, 123.0) in (-1, 123)
    w = np.ones(100)
    assert m.call_first_neg(w) == 0.0
    w[40] = -3.0
    assert m.call_first_neg(w) == -3.0

    st = rng.random(333)
    mean, sd, lo, hi, fl = m.stats(st)
    assert np.isclose(mean, st.mean()) and np.isclose(sd, st.std())
    assert lo == min(st[0], st[-1]) and hi == max(st[0], st[-1]) and fl == 3.0

    assert m.swap_pairs("a", [1]) == ([1], "a", 6)
    mm = rng.random((31, 17), dtype=np.float32)
    assert np.isclose(m.unchecked_sum(mm), mm.astype(np.float64).sum(), rtol=1e-6)

    for a_, b_ in ((17, 5), (-17, 5), (17, -5), (-17, -5)):
        exp = (a_ // b_, a_ % b_, a_ / b_, -a_ // b_, a_ ** 2, abs(-a_), a_ << 2, a_ >> 1, a_ & b_, a_ | b_, a_ ^ b_)
        assert m.int_ops(a_, b_) == exp, (a_, b_, m.int_ops(a_, b_), exp)
    assert m.wrap_only(np.arange(5.0)) == 7.0
    vv = np.arange(1, 41, dtype=np.int64)
    xr = 0
    for t in vv:
        xr ^= int(t)
    assert m.mixed_reductions(vv) == (100 - int(vv.sum()), xr, 2 ** 20, 0.5 + 0.5 * float(vv.sum()))
    for a_, b_, k_ in ((0.0, 2.5, 0), (-0.0, 1.0, 3), (1.5, -2.0, -1), (float("nan"), 4.0, 0)):
        # mixed long/double operands give a double (C's arithmetic conversion)
        want = ((a_ or b_, a_ and b_, float(k_ and a_), float((k_ or 0) and (a_ or b_) and 7.5)), 2)
        got = m.value_and_or(a_, b_, k_)
        assert repr(got) == repr(want), (a_, b_, k_, got, want)

    # values from Cython 3.3 on the same functions
    assert m.spans(-2, 3, 1, 7, -5, 1.5) == (65534, 3, -2, 3, 1, 7, -5, -2.0, 3, 1, -5)
    assert m.spans(-2, 3, -1, 7, -5, 1.5) == (65534, 3, 3, -2, 7, 4294967295, -5, -2.0, 3, 7, -2)
    assert m.spans(5, 3, -3, 2, 9, -1.5) == (3, 5, 3, 5, 2, 4294967293, 5, -1.5, 2, 2, 5)
    a = np.array([-2, 5, 10, -128, 127, -3], dtype=np.int8)
    b = np.array([3, 3, 20, 0, 65535, 2000], dtype=np.uint16)
    out = np.zeros(6, dtype=np.intc)
    m.spans_prange(a, b, out)
    assert out.tolist() == [2, 1, 2, 2, 12, 112], out
    # Python's and/or boxed directly: the deciding operand as it is (Cython 3.3's values)
    for args, want in (((2.5, 0, -2, 7), (0, 2.5, 0, -2, -2, 7)), ((2.5, 3, 0, 7), (2.5, 3, 3, 7, 0, 0)),
                       ((0.0, -4, -3, 0), (0.0, -4, 0.0, -3, 0, 0)), ((-1.5, 0, 5, 9), (0, -1.5, 0, 5, 5, 9))):
        got = m.value_and_or_boxed(*args)
        assert repr(got) == repr(want), (args, got, want)
    # Cython 3.3's values
    assert m.float_eps() == 2.220446049250313e-16
    assert m.literal_types(1e-8, 0, 4) == (4.999999969612645e-09, True, False, -1)
    assert m.literal_types(3.0, 5, -9) == (1.5, True, False, 0)
    assert m.cdiv(3, 5) == (0.0, 0) and m.cdiv(-7, 2) == (0.0, -3)
    assert m.fstrings(1.5, 3, "hi") == ("x=1.5 n=    3 y=3.000 'hi' {literal} 4 a      1.5tail", "", "3", "[3, 3]",
                                         "True")
    for a, b in ((-7, 8), (8, -7), (3, 3), (0, 5)):
        for s in (-4, -3, -1, 1, 2, 5):
            assert m.prange_trips(a, b, s) == len(range(a, b, s)), (a, b, s)
    assert m.prange_trips(-2**31, 2**31 - 1, 2**30) == 4
    assert m.prange_trips(2**31 - 1, -2**31, -2**30) == 4
    x, a, b = np.ones(100), np.ones((9, 11)), np.ones((7, 5))
    m.prange_index_at(x, a, b)
    wx, wa = np.ones(100), np.ones((9, 11))
    wx[0::3] += np.arange(0, 100, 3)
    wa[:, 0::2] += np.arange(9)[:, None] * 100 + np.arange(0, 11, 2)[None, :]
    assert np.array_equal(x, wx) and np.array_equal(a, wa), (x, a)
    assert np.array_equal(b, 2 + np.arange(5)[None, :].repeat(7, 0)), b
