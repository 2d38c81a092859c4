import numpy as np


def check(mod):
    assert mod.as_object(1e20, 3.9) == (10**20, 3, 10**20 + 1, int(1e20 * 1e10)), mod.as_object(1e20, 3.9)
    assert mod.as_object(-2.7, -1e19) == (-2, int(np.float32(-1e19)), -1, -27000000000), mod.as_object(-2.7, -1e19)
    assert mod.as_object(2.0**70, 0.5)[0] == 2**70
    for bad, exc in ((float("nan"), ValueError), (float("inf"), OverflowError), (-float("inf"), OverflowError)):
        try:
            mod.as_object(bad, 0.0)
        except exc:
            pass
        else:
            raise AssertionError("no %s for %r" % (exc.__name__, bad))
    assert mod.into_c(-2.7) == -2 and mod.into_c(123456.9) == 123456
    a = np.array([0.5, -0.5, 2.9, -2.9, 1e15] * 20)
    out = np.zeros(a.size, np.int64)
    mod.kernel(a, out)
    assert (out == a.astype(np.int64)).all(), out[:5]
