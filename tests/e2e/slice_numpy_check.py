import numpy as np


def raises(f, *args, words=()):
    try:
        f(*args)
    except ValueError as e:
        for w in words:
            assert w in str(e), str(e)
        return str(e)
    raise AssertionError("%s must raise ValueError" % f.__name__)


def check(mod):
    rng = np.random.default_rng(18)
    shapes = [(5, 1), (1, 7), (1, 1), (5, 7)]
    for sa in shapes:
        for sb in shapes:
            a, b = rng.random(sa), rng.random(sb)
            c = np.zeros((5, 7))
            mod.bcast2(c, a, b, 0.5)
            assert np.array_equal(c, np.broadcast_to(a * b + 0.5, c.shape)), (sa, sb)
    for sa, sb in [((3, 1), (1, 3)), ((1, 3), (3, 3)), ((1, 1), (3, 1))]:
        a, b = rng.random((6, 6))[::-2, :sa[1]][:sa[0]], rng.random((9, 9))[:sb[0], ::-3][:, :sb[1]]
        c = np.zeros((5, 7))
        mod.bcast2(c[::-2, ::3], a, b, 1.5)  # strided target and operands
        e = np.zeros((5, 7))
        e[::-2, ::3] = a * b + 1.5
        assert np.array_equal(c, e), (sa, sb)
    for n in (0, 1):  # an empty target: an extent 1 stretches to 0
        c = np.zeros((n, 7))
        mod.bcast2(c, rng.random((1, 7)), rng.random((1, 1)), 1.0)
        assert np.array_equal(c, np.broadcast_to(np.zeros(1), c.shape) + c)
    c = np.zeros((5, 7))
    msg = raises(mod.bcast2, c, rng.random((5, 3)), rng.random((5, 7)), 1.0,
                 words=("dimension 1", "'a[:, :]'", "3", "7", "'c[:, :]'"))
    raises(mod.bcast2, c, rng.random((5, 7)), rng.random((4, 7)), 1.0, words=("dimension 0", "'b[:, :]'"))
    # the target never stretches
    raises(mod.bcast2, np.zeros((1, 7)), rng.random((5, 7)), rng.random((5, 7)), 1.0, words=("dimension 0",))
    assert np.all(c == 0)  # nothing written before the error
    # contiguous axes: copied stretched
    for sa, sr in [((4, 1), 6), ((4, 6), 1), ((1, 1), 1), ((1, 6), 6), ((4, 6), 6)]:
        a = rng.random(sa, dtype=np.float32)
        r = rng.random(sr, dtype=np.float32)
        c = np.zeros((4, 6), dtype=np.float32)
        mod.bcast_contig(c, a, r)
        assert np.array_equal(c, np.broadcast_to(a - r, c.shape)), (sa, sr)
    for sc in ((0, 6), (4, 0), (0, 0)):  # empty loops: nothing to stretch or copy
        c = np.zeros(sc, dtype=np.float32)
        mod.bcast_contig(c, np.ones((1, 1), dtype=np.float32), np.ones(1, dtype=np.float32))
        assert mod.bcast_sum(np.zeros((sc[0], 1)), np.ones((1, 1))) == 0.0
    for sa, sb in [((6, 1), (6, 5)), ((1, 5), (1, 1)), ((6, 5), (6, 1))]:
        a = np.asfortranarray(rng.random(sa))
        b = rng.random(sb)
        c = np.asfortranarray(np.zeros((6, 5)))
        mod.bcast_fortran(c, a, b)
        assert np.array_equal(c, np.broadcast_to(np.sqrt(a) + b, c.shape)), (sa, sb)
    for sa, nv in [((3, 1, 4), 4), ((1, 5, 1), 1), ((3, 5, 4), 1), ((1, 1, 1), 4)]:
        a = rng.integers(-50, 50, sa)
        v = rng.integers(-50, 50, nv)
        c = np.zeros((3, 5, 4), dtype=np.int_)
        mod.bcast3(c, a, v)
        assert np.array_equal(c, np.broadcast_to(a * 2 + v, c.shape)), (sa, nv)
    raises(mod.bcast3, np.zeros((3, 5, 4), dtype=np.int_), rng.integers(0, 9, (3, 5, 4)), np.zeros(3, dtype=np.int_),
           words=("dimension 2", "'v[:]'"))
    a, b = rng.random((8, 1)) + 1, rng.random((1, 9)) + 1
    c = np.zeros((8, 9))
    mod.bcast_nogil(c, a, b)
    assert np.array_equal(c, a / b)
    raises(mod.bcast_nogil, c, rng.random((8, 2)), b, words=("dimension 1",))
    c = rng.random((8, 9))
    col = rng.random((8, 1))
    e = c + col
    mod.bcast_inplace(c, col)
    assert np.array_equal(c, e)
    for sa, sb in [((5, 1), (1, 7)), ((5, 7), (1, 7)), ((1, 7), (5, 7)), ((1, 1), (5, 7)), ((0, 7), (1, 7)),
                   ((5, 7), (5, 7))]:
        a, b = rng.random(sa), rng.random(sb)
        assert np.isclose(mod.bcast_sum(a, b), (a * b).sum()), (sa, sb)
    raises(mod.bcast_sum, rng.random((5, 7)), rng.random((4, 7)), words=("dimension 0", "other operands"))
    ai = rng.integers(-9, 9, 1).astype(np.intc)
    bi = rng.integers(-9, 9, (4, 6)).astype(np.intc)
    assert mod.bcast_sum_int(ai, bi) == int((ai - bi).sum())
    ai = rng.integers(-9, 9, 6).astype(np.intc)
    bi = rng.integers(-9, 9, (4, 1)).astype(np.intc)
    r = mod.bcast_sum_int(ai, bi)
    assert r == int((ai.astype(np.int64) - bi).sum()) and isinstance(r, int), r
    # overlap: numpy's results
    for n in (0, 1, 2, 1000):
        for f, g in [(mod.shift_right, lambda a: a.__setitem__(slice(1, None), a[:-1] + 1)),
                     (mod.shift_left, lambda a: a.__setitem__(slice(None, -1), a[1:] * 2)),
                     (mod.reverse, lambda a: a.__setitem__(slice(None, None, -1), a[:] * 2)),
                     (mod.same, lambda a: a.__setitem__(slice(None), a * 2 + a)),
                     (mod.interleave, lambda a: a.__setitem__(slice(None, None, 2), a[1::2])),
                     (mod.shift_aug, lambda a: a.__setitem__(slice(1, None), a[1:] + a[:-1]))]:
            if f is mod.interleave and n % 2:
                continue
            a = rng.random(n)
            e = a.copy()
            g(e)
            f(a)
            assert np.array_equal(a, e), (f.__name__, n)
    for x in (rng.random((7, 7)), rng.random((7, 7))[::-1, 1:]):
        x = x[:6, :6]
        e = x.T.copy()
        mod.transpose(x)
        assert np.array_equal(x, e)
    x = rng.random((9, 9))
    e = x.T + 1
    mod.transpose_c(x)
    assert np.array_equal(x, e)
    x = np.asfortranarray(rng.random((9, 9)))
    e = x.T * 3
    mod.transpose_f(x)
    assert np.array_equal(x, e)
    raises(mod.transpose, np.zeros((3, 4)), words=("dimension 0",))
    x = rng.random((6, 8))
    e = x.copy()
    e[1:, 1:] = e[:-1, :-1] + e[1:, 1:]
    mod.shift2(x)
    assert np.array_equal(x, e)
    x = rng.random((6, 8))
    e = np.broadcast_to(x[:1, :] * 2, x.shape).copy()
    mod.first_row(x)
    assert np.array_equal(x, e)
    ai = rng.integers(-99, 99, 50).astype(np.intc)
    e = ai.copy()
    e[2:] = e[:-2] - e[2:]
    mod.shift_nogil(ai)
    assert np.array_equal(ai, e)
    # inside a prange body: the same rules, per iteration
    for nr in (5, 1):
        m = rng.random((4, 5))
        r = rng.random((1, nr))
        e = m + r[0]
        mod.in_prange(m, r)
        assert np.array_equal(m, e)
    raises(mod.in_prange, rng.random((4, 5)), rng.random((1, 2)), words=("dimension 0", "'r[0, :]'"))
    m = rng.random((6, 9))
    e = m.copy()
    e[:, 1:] = e[:, :-1] * 2
    e[:, ::-1] = e[:, :] + 1
    mod.in_prange_overlap(m)
    assert np.array_equal(m, e)
    # sum() and per-row statements in a fused function, both specialisations
    for dt in (np.float32, np.float64):
        a = np.arange(12, dtype=dt).reshape(3, 4)
        c = np.ones((3, 4), dt)
        e = c.copy()
        for i in range(3):
            e[i, 1:] = a[i, :-1] * 2 + e[i, :-1]
        u, t = mod.fused_sums(a, c)
        assert np.array_equal(c, e), dt
        assert u == float((a[:, 1:] * 2).sum()) and t == float((a * e).sum()), (dt, u, t)
