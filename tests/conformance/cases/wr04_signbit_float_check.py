import numpy as np


def check(mod):
    a = np.array([1.0, -1.0, -0.0, 0.0, -np.inf, np.inf, 3.5, -2.25] * 40)
    n = a.size
    idx = np.random.default_rng(4).permutation(n).astype(np.int64)
    out = np.zeros(n, np.int64)
    outd = np.zeros(n, np.int64)
    mod.sb_scatter(a.astype(np.float32), a, idx, out, outd)
    neg = np.signbit(a)
    want = np.zeros(n, np.int64)
    want[idx] = np.where(neg, -2147483648, 0)
    assert (out == want).all(), out[idx][:8]
    wantd = np.zeros(n, np.int64)
    wantd[idx] = np.where(neg, 7, 0)
    assert (outd == wantd).all(), outd[idx][:8]
    assert mod.sb_scalar(-1.5, -1.5) == (-2147483648, 1, True, True), mod.sb_scalar(-1.5, -1.5)
    assert mod.sb_scalar(-0.0, 2.0) == (-2147483648, 0, True, True)
    assert mod.sb_scalar(1.0, -0.0) == (0, 1, False, False)
