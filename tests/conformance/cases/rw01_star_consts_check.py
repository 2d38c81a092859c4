import ctypes
import numpy as np


def libc_uniform(n, seed, scale):
    libc = ctypes.CDLL(None)
    libc.srand(ctypes.c_uint(seed))
    return [libc.rand() / scale for _ in range(n)]


def check(mod):
    rng = np.random.default_rng(11)
    x = rng.random((37, 23)) - 0.5
    out = np.zeros(37)
    mod.norms(x, out)
    expect = []
    for row in x.tolist():
        s = 0.0
        for t in row:
            s = s + t * t
        expect.append(np.sqrt(s) + 3.0)
    assert np.array_equal(out, expect)

    mod.row_min(x, out)
    assert np.array_equal(out, x.min(axis=1))
    empty = np.zeros((5, 0))
    out5 = np.zeros(5)
    mod.row_min(empty, out5)
    assert np.all(out5 == np.finfo(np.float64).max)

    imax = np.iinfo(np.int32).max
    v = np.array([0, -5, imax - 3, imax, 100, imax - 7], dtype=np.intc)
    o = np.zeros_like(v)
    consts = mod.add_saturated(v, 7, o)
    expect = np.where(v.astype(np.int64) > imax - 7, imax, v.astype(np.int64) + 7)
    assert np.array_equal(o, expect), (o, expect)
    assert consts == (np.iinfo(np.int32).min, np.iinfo(np.int64).max,
                      float(np.finfo(np.float32).eps), float(np.finfo(np.float64).eps)), consts

    vals, rmax = mod.uniform(20, 12345)
    assert vals == libc_uniform(20, 12345, rmax + 1.0)
    assert all(0 <= t < 1 for t in vals)

    noise = np.full(50, 2.0)
    mod.scaled_noise(noise, 99)
    assert np.array_equal(noise, 2.0 * np.array(libc_uniform(50, 99, float(rmax))))
