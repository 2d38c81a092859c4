import numpy as np


def check(mod):
    rng = np.random.default_rng(11)
    n = 5003
    a = rng.integers(-10**6, 10**6, n).astype(np.int64)
    b = rng.integers(-50, 50, n).astype(np.int64)
    b[b == 0] = 7
    q = np.empty_like(a); r = np.empty_like(a)
    mod.py_divmod(a, b, q, r)
    assert (q == a // b).all() and (r == a % b).all()
    a32 = a.astype(np.int32); b32 = b.astype(np.int32)
    cq = np.empty_like(a32); cr = np.empty_like(a32)
    mod.c_divmod(a32, b32, cq, cr)
    tq = np.trunc(a32 / b32).astype(np.int32)
    assert (cq == tq).all() and (cr == a32 - tq * b32).all()
    x = rng.uniform(-100, 100, n)
    bk = np.empty(n, np.int64)
    mod.bucket(x, 7.5, bk)
    want = (x // 7.5).astype(np.int64) * 1000 + (x % 7.5).astype(np.int64)
    assert (bk == want).all()
    t = rng.uniform(-50, 50, n)
    wa = np.empty(n)
    mod.wrap_angle(t, wa)
    assert np.array_equal(wa, t % 6.283185307179586)
    data = rng.integers(0, 256, (301, 37)).astype(np.uint8)
    h = np.empty(301, np.uint32)
    mod.fnv_rows(data, h)
    hw = np.full(301, 2166136261, np.uint64)
    for j in range(37):
        hw = ((hw ^ data[:, j]) * 16777619) & 0xFFFFFFFF
    hw = ((hw >> 7) ^ ((hw << 3) & 0xFFFFFFFF)).astype(np.uint32)
    assert (h == hw).all()
    a = rng.integers(-2**31, 2**31, n).astype(np.int32)
    sr = np.empty(n, np.int32); ur = np.empty(n, np.uint32); sl = np.empty(n, np.int64)
    mod.shifts(a, sr, ur, sl)
    k = np.arange(n) % 13
    assert (sr == a >> k).all()
    assert (ur == a.view(np.uint32) >> k.astype(np.uint32)).all()
    assert (sl == a.astype(np.int64) << k).all()
    a16 = rng.integers(-32768, 32768, n).astype(np.int16)
    b16 = rng.integers(-32768, 32768, n).astype(np.int16)
    a16[:3] = -32768; b16[:3] = -32768
    o16 = np.empty(n, np.int16)
    mod.q15_mul(a16, b16, o16)
    p = (a16.astype(np.int64) * b16 + (1 << 14)) >> 15
    assert (o16 == np.clip(p, -32768, 32767)).all()
    ai = rng.integers(-1000, 1000, n).astype(np.int32)
    f = rng.uniform(-3, 3, n).astype(np.float32)
    out = np.empty(n); ti = np.empty(n, np.int32)
    mod.promote(ai, f, out, ti)
    want = ai / 3 + (f * ai.astype(np.float32)).astype(np.float64)
    assert np.array_equal(out, want), np.abs(out - want).max()
    assert (ti == np.trunc(f * np.float32(-2.5)).astype(np.int32)).all()
    return [q, r, cq, cr, bk, wa, h, sr, ur, sl, o16, out, ti]
