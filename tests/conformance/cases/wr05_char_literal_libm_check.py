import math
import numpy as np

INT_MIN, INT_MAX = -2**31, 2**31 - 1


def logb(v):
    if v == 0:
        return -math.inf
    if math.isnan(v) or math.isinf(v):
        return abs(v)
    return float(math.frexp(v)[1] - 1)


def ilogb(v):
    if v == 0 or math.isnan(v):
        return INT_MIN
    if math.isinf(v):
        return INT_MAX
    return math.frexp(v)[1] - 1


def want(x, k, dt):
    x = x.astype(dt)
    out = np.empty((x.size, 6), dt)
    with np.errstate(all="ignore"):
        out[:, 0] = np.ldexp(x, k)
        out[:, 1] = np.ldexp(x, -k)
        out[:, 2] = np.rint(x)
        out[:, 3] = [logb(float(v)) for v in x]
        out[:, 4] = np.nextafter(x, dt(0))
        out[:, 5] = np.nextafter(x, x + dt(1))
    return out.ravel(), np.array([ilogb(float(v)) for v in x], np.int32)


def check(mod):
    txt = b"banana\nand a 0123" * 50
    out = np.zeros(2, np.int64)
    mod.count_chars(np.frombuffer(txt, np.int8).copy(), out)
    assert out[0] == sum(c in b"a\n" for c in txt), out
    assert out[1] == sum(c - 48 for c in txt), out
    assert mod.char_values() == (122, 25, 92, 127, 39, 113), mod.char_values()
    base = [0.0, -0.0, 1.0, -1.5, 2.5, 3.5, -2.5, 0.5, 1e-310, 5e-324, 1e300, np.inf, -np.inf, np.nan, 7.0, 1023.9,
            0.49999999999999994, -1e-300, 6.0e4, 1.0e-40]
    x = np.array(base * 12)
    k = (np.arange(x.size) % 11 - 5).astype(np.int32)
    for dt, fn in ((np.float64, mod.fns), (np.float32, mod.fns_f)):
        with np.errstate(all="ignore"):
            xs = x.astype(dt)
        got = np.empty(6 * x.size, dt)
        igot = np.empty(x.size, np.int32)
        fn(xs, k, got, igot)
        w, iw = want(xs, k, dt)
        bad = np.nonzero(~((got == w) | (np.isnan(got) & np.isnan(w))) | (np.signbit(got) != np.signbit(w)))[0]
        assert bad.size == 0, (dt, bad[:5], got[bad[:5]], w[bad[:5]], xs[bad[:5] // 6])
        assert (igot == iw).all(), (dt, igot[:20], iw[:20])
    r = mod.scalar(2.5, 3)
    assert r == (20.0, 20.0, 2.0, 1.0, 1, np.nextafter(2.5, 0.0)), r
    r = mod.scalar(0.0, 3)
    assert r[3] == -math.inf and r[4] == INT_MIN, r
