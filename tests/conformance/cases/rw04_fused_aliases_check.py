import numpy as np


def check(mod):
    rng = np.random.default_rng(21)
    for dt in (np.float64, np.float32):
        a = rng.random((6, 5)).astype(dt)
        a_strided = np.asarray(rng.random((6, 10)).astype(dt))[:, ::2]
        b = rng.random((6, 5)).astype(dt)
        for it in (np.int16, np.intc, np.int_):
            rows = np.array([5, 0, 3, 3], dtype=it)
            for src in (a, a_strided):
                out = np.zeros((4, 5), dtype=dt)
                t = dt(0.25)
                assert mod.blend(src, b, t, rows, out) == 4
                expect = src[rows] + (b[rows] - src[rows]) * t
                assert np.array_equal(out, expect.astype(dt)), (dt, it)
    try:
        mod.blend(a.astype(np.float64), b.astype(np.float32), 0.5, rows, np.zeros((4, 5), np.float32))
    except (TypeError, ValueError):
        pass
    else:
        raise AssertionError("mixed float types accepted")

    x = rng.integers(-5, 20, (7, 9))
    y = rng.integers(-5, 20, (7, 9))
    for dt, a, b in ((np.intc, 3, 4), (np.double, 1.5, -2.0), (np.longlong, 7, 2)):
        r, w = mod.compute(x.astype(dt), y.astype(dt), a, b, 0.75)
        assert r.dtype == np.dtype(dt) and w == 1.5
        expect = np.clip(x, 2, 10).astype(dt) * dt(a) + y.astype(dt) * dt(b)
        assert np.array_equal(r, expect), dt
