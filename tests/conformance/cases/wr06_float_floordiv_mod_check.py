import numpy as np


def cy_divmod(a, b):
    with np.errstate(all="ignore"):
        q = np.floor(a / b)
        r = np.fmod(a, b)
        k = ((r != 0) & ((r < 0) ^ (b < 0))).astype(a.dtype)
        r = r + k * b
    return q, r


def same(got, want):
    return np.array_equal(got, want, equal_nan=True) and (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()


A = [1.0, -1.0, 0.0, -0.0, 5.5, -5.5, 1e300, 7.0, -7.0, np.inf, -np.inf, np.nan, 0.3, -0.3, 1.0, 3.0, -3.0,
     1e-310, 2.0**60 + 1e3, 0.7, 1e30]
B = [0.1, 0.1, -1.0, 1.0, -2.0, 2.0, 1e-300, np.inf, np.inf, 3.0, 2.0, 1.0, -0.1, 0.1, -3.0, np.nan, -np.inf,
     3.0, 0.3, 0.1, 1e-20]


def check(mod):
    for dt, fn in ((np.float64, mod.divmod_d), (np.float32, mod.divmod_f)):
        with np.errstate(all="ignore"):
            a = np.array(A * 9, dt)
            b = np.array(B * 9, dt)
        b[b == 0] = 1
        q = np.zeros_like(a)
        r = np.zeros_like(a)
        fn(a, b, q, r)
        wq, wr = cy_divmod(a, b)
        assert same(q, wq), (dt, [(x, y, g, w) for x, y, g, w in zip(a, b, q, wq) if not same(np.array([g]), np.array([w]))][:4])
        assert same(r, wr), (dt, [(x, y, g, w) for x, y, g, w in zip(a, b, r, wr) if not same(np.array([g]), np.array([w]))][:4])
    a = np.array([x for x in A if x != 0] * 5)
    out = np.zeros(3 * a.size)
    mod.mixed(a, out)
    k = np.arange(a.size) % 5 - 2.0
    k[k == 0] = 3
    want = np.empty((a.size, 3))
    with np.errstate(all="ignore"):
        want[:, 0] = cy_divmod(a, k)[0] + cy_divmod(np.full_like(a, 7.0), a)[0]
    want[:, 1] = cy_divmod(a, k)[1]
    want[:, 2] = cy_divmod(a, np.full_like(a, -0.5))[1]
    assert same(out, want.ravel()), [(i, out[i], w) for i, w in enumerate(want.ravel()) if not same(out[i:i + 1], np.array([w]))][:4]
    q, r, qf, rf, q2 = mod.scalar(1.0, 0.1, 0.3, -0.1)
    wrf = cy_divmod(np.array([0.3], np.float32), np.array([-0.1], np.float32))[1][0]
    assert (q, r, qf, q2) == (10.0, 0.09999999999999995, -3.0, 10.0) and rf == wrf, (q, r, qf, rf, q2)
    q, r, qf, rf, q2 = mod.scalar(7.0, np.inf, -7.0, np.inf)
    assert q == 0.0 and np.isnan(r) and qf == 0.0 and np.signbit(qf) and rf == np.inf and q2 == 0.0, (q, r, qf, rf)
    q, r, qf, rf, q2 = mod.scalar(0.0, -1.0, np.inf, 3.0)
    assert r == 0.0 and not np.signbit(r) and qf == np.inf and np.isnan(rf), (q, r, qf, rf)
