import numpy as np


def check(mod):
    a = np.array([0, -1, 5, -7, -2**31, 2**31 - 1] * 50, np.intc)
    out = np.empty(a.size, np.int64)
    mod.abs_int(a, out)
    want = np.abs(a.astype(np.int64))
    want[a == -2**31] = -2**31
    assert (out == want).all(), out[:6]
    b = np.array([0, -3, 2**62, -2**63, 2**63 - 1] * 50, np.int64)
    d = np.empty(b.size)
    mod.abs_long(b, d)
    want = np.abs(b.astype(np.float64))
    want[b == -2**63] = -2.0**63
    assert (d == want).all(), d[:5]
