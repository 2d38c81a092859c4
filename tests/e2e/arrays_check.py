import numpy as np


def check(mod):
    rng = np.random.default_rng(7)
    a = np.zeros((5, 7))
    mod.fill(a, 2.5)
    assert np.all(a == 2.5)
    mod.fill(a[::2, 1::3], -1.0)
    exp = np.full((5, 7), 2.5)
    exp[::2, 1::3] = -1.0
    assert np.array_equal(a, exp)
    for n in (0, 1, 1000):
        src = rng.random(n)
        dst = np.zeros(n)
        mod.copy(dst, src)
        assert np.array_equal(dst, src), n
    x = rng.random(200)
    y = rng.random(300)
    out = np.zeros(100)
    mod.axpy_strided(3.0, x, y, out)
    assert np.allclose(out[::-1], 3.0 * x[::2] + y[1::3])
    xo = rng.random(50)
    k = np.arange(50, dtype=np.intc)
    of = np.zeros(50, dtype=np.float32)
    mod.mixed(of, xo, k, 0.5)
    assert np.allclose(of, (-xo * k + np.float32(0.5)).astype(np.float32), rtol=1e-6)
    o2 = np.zeros(200)
    mod.select(o2, x, x * 2)
    assert np.array_equal(o2, x)
    mod.ncalls = 0
    o3 = np.zeros(200)
    mod.hoisted(o3, x)
    assert np.allclose(o3, 3.0 * x) and mod.ncalls == 1, mod.ncalls
    u = rng.random((65, 33))
    o4 = np.zeros_like(u)
    mod.stencil(u, o4)
    e4 = np.zeros_like(u)
    e4[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    assert np.allclose(o4, e4)
    m = rng.random((40, 30)) - 0.5
    v = np.arange(-20, 20, dtype=np.int_)
    t, sv, r = mod.sums(m, v)
    assert np.isclose(t, (m * 2).sum()) and sv == int((v * v).sum()) and np.isclose(r, np.sqrt(np.abs(m[0]).sum()))
    assert isinstance(sv, int)
    b = rng.random(100)
    a1 = np.zeros(100)
    mod.nogil_caller(a1, b)
    assert np.allclose(a1[1:-1], 0.5 * (b[:-2] + b[2:])) and a1[0] == 0 and a1[-1] == 0
    mm = rng.random((30, 20))
    exp_m = mm * 2
    rs = np.zeros(30)
    mod.rows(mm, rs)
    assert np.allclose(mm, exp_m) and np.allclose(rs, exp_m.sum(axis=1))
    for f in (mod.mismatch, mod.mismatch_nogil):
        try:
            f(np.zeros(3), np.zeros(4))
        except ValueError as e:
            assert "shape" in str(e), str(e)
        else:
            raise AssertionError("a shape mismatch must raise ValueError")
    # overlapping operands: element for element is read in place, anything
    # else as numpy reads it (as if copied first)
    d = rng.random((6, 4))
    e = d * 2.0 + d
    mod.double_in_place(d)
    assert np.allclose(d, e)
    s = np.arange(10.0)
    mod.shift(s)
    assert s.tolist() == [0.0] + list(np.arange(9.0)), s
    xr, yr = rng.random(300) - 0.5, rng.random(300) - 0.5
    orl = np.zeros(300)
    mod.relu_where(orl, xr, yr)
    assert np.array_equal(orl, np.where((xr > 0) & ~(yr < 0), xr, 0.0))
    ai, bi = rng.random((6, 5)), rng.random((6, 5))
    ei = ai.copy()
    ei[:, 1:] += bi[:, :-1] * 1.5
    ei[::2, :] *= 2.0
    mod.inplace(ai, bi, 1.5)
    assert np.allclose(ai, ei)
    mb, bb = rng.random((7, 5)), rng.random(5)
    ob = np.zeros((7, 5))
    mod.bias(ob, mb, bb)
    assert np.allclose(ob, mb + bb)
    assert np.isclose(mod.weighted(mb, bb), (mb * bb).sum())
    try:
        mod.bias(ob, mb, np.zeros(7))
    except ValueError as err:
        assert "shape" in str(err), str(err)
    else:
        raise AssertionError("a broadcast operand of the wrong extent must raise ValueError")
    z = np.arange(4.0)
    assert mod.empty_slice_scalar(z, 0.0, 0) == 0 and z.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert mod.empty_slice_scalar(z, 4.0, 2) == (1 + 2) * 0.0 and z.tolist() == [1.0, 2.0, 2.0, 3.0]
    try:
        mod.empty_slice_scalar(z, 0.0, 1)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("1 % 0.0 over one element must raise")
