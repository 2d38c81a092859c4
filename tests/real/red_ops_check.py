import numpy as np


def check(mod):
    rng = np.random.default_rng(5)
    n = 40_000
    x = (rng.integers(0, 1024, n) / 1024).astype(np.float32)   # exact in float32 sums
    k = rng.integers(-10**9, 10**9, n).astype(np.int64)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    r = mod.reductions(x, k, bits)
    fsum, fsub, prod, isum, isub, imul, bor, band, bxor, cnt = r
    assert abs(fsum - float(x.astype(np.float64).sum())) < 1.0
    assert abs(fsub - (100 - float((x.astype(np.float64) * 0.5).sum()))) < 1.0
    assert np.isclose(prod, np.prod(1.0 + x.astype(np.float64) * 1e-3), rtol=1e-9)
    assert isum == int(k.sum()) and isub == -2 * int(k.sum())
    assert imul == int(np.prod((k[::97] % 3) + 1))
    assert bor == int(np.bitwise_or.reduce(bits))
    assert band == int(np.bitwise_and.reduce(bits | np.uint32(0x00F0000F)))
    assert bxor == int(np.bitwise_xor.reduce(bits))
    assert cnt == int((x > 0.5).sum())
    m = rng.integers(0, 5, (513, 67)).astype(np.float32)
    lo = np.empty(513, np.float32); hi = np.empty(513, np.float32)
    amn = np.empty(513, np.int32); amx = np.empty(513, np.int32)
    mod.row_minmax(m, lo, hi, amn, amx)
    assert (lo == m.min(1)).all() and (hi == m.max(1)).all()
    assert (amn == m.argmin(1)).all()
    assert (amx == 66 - m[:, ::-1].argmax(1)).all()
    v = rng.integers(-128, 128, 12345).astype(np.int8)
    s, sq = mod.small_int_sum(v)
    assert s == int(v.astype(np.int64).sum()) and sq == int((v.astype(np.int64) ** 2).sum())
    y = rng.normal(size=1001)
    li = mod.last_positive(y)
    assert li == (1000, y[1000] * 2, 1000), li
    # exact-valued parts only: float sums may differ in the order of additions
    return [int(isum), int(isub), int(imul), int(bor), int(band), int(bxor), int(cnt),
            lo, hi, amn, amx, s, sq, li]
