import os
import numpy as np

# the GPU plans on whatever device runs the kernels (PoCL here): set before
# the first launch, when the runtime reads it
os.environ["CYOCL_PLAN"] = "gpu"


def serial(a, b, init=None):
    """s = init; s = s + a[i, k] * b[k, j] for k in order: Cython's rounding, vectorised over (i, j)"""
    t = a.dtype.type
    s = np.zeros((a.shape[0], b.shape[1]), a.dtype) if init is None else np.array(init, a.dtype)
    for k in range(a.shape[1]):
        s = s + np.multiply.outer(a[:, k], b[k, :]).astype(a.dtype)
    assert s.dtype == np.dtype(t)
    return s


def same(got, want, what):
    assert got.shape == want.shape and got.tobytes() == want.tobytes(), \
        "%s: %d elements differ" % (what, np.count_nonzero(got != want))


def check(mod):
    rng = np.random.default_rng(17)
    sizes = [(1, 1, 1), (7, 7, 7), (63, 65, 129), (65, 63, 7), (129, 17, 64), (3, 200, 5), (130, 0, 7), (0, 5, 3)]
    for n, k, m in sizes:
        a, b = rng.standard_normal((n, k)), rng.standard_normal((k, m))
        c = np.full((n, m), np.nan)
        mod.matmul(a, b, c)
        same(c, serial(a, b), "matmul %s" % ((n, k, m),))
        c = np.full((n, m), np.nan)
        mod.matmul(np.asfortranarray(a), b, c)
        same(c, serial(a, b), "matmul F %s" % ((n, k, m),))
        big = rng.standard_normal((2 * k + 1, 3 * m + 2))
        bv = big[::2, 1::3][:k, :m]
        cbig = np.full((n, 2 * m + 1), np.nan)
        mod.matmul(a.T.copy().T, bv, cbig[:, ::2][:, :m])
        same(cbig[:, ::2][:, :m], serial(a, np.ascontiguousarray(bv)), "matmul strided %s" % ((n, k, m),))
        assert np.isnan(cbig[:, 1::2]).all(), "matmul strided wrote between the elements"
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        c32 = np.full((n, m), np.nan, np.float32)
        mod.matmul_f32(a32, b32, c32)
        same(c32, serial(a32, b32), "matmul_f32 %s" % ((n, k, m),))
        bias = rng.standard_normal(m)
        keep = (rng.random(m) < 0.8).astype(np.intc)
        out = np.full((n, m), np.nan)
        mod.relu_layer(np.ascontiguousarray(a), np.ascontiguousarray(b), bias, keep, out)
        s = serial(a, b, np.broadcast_to(bias, (n, m)))
        t = np.ones(m)
        for kk in range(k):
            t = t * (1.0 + b[kk, :] * 0.001)
        want = np.where(s > 0, s * t, 0.0)
        want[:, keep == 0] = np.nan
        same(out, want, "relu_layer %s" % ((n, k, m),))

    # transposed operands, non-square
    x = rng.standard_normal((70, 45))
    c = np.full((45, 45), np.nan)
    mod.matmul(x.T, x, c)
    same(c, serial(np.ascontiguousarray(x.T), x), "matmul x.T @ x")

    # the output is the left operand: the runtime sees the overlap and runs
    # the kernel that keeps j serial, as Cython does (row i's earlier
    # columns are already overwritten when later ones are computed)
    x = rng.standard_normal((65, 65))
    b = rng.standard_normal((65, 65))
    want = x.copy()
    for j in range(65):
        s = np.zeros(65)
        for kk in range(65):
            s = s + want[:, kk] * b[kk, j]
        want[:, j] = s
    mod.matmul(x, b, x)
    same(x, want, "matmul with c = a")

    # bounds checks: in range, the live lastprivates are the last element's
    a32 = rng.standard_normal((33, 20)).astype(np.float32)
    b32 = rng.standard_normal((20, 70)).astype(np.float32)
    c32 = np.full((33, 70), np.nan, np.float32)
    k, j, s = mod.matmul_checked(a32, b32, c32, 20)
    want = serial(a32, b32)
    same(c32, want, "matmul_checked")
    assert (k, j) == (19, 69) and np.float32(s) == want[-1, -1], (k, j, s, want[-1, -1])
    # out of range along k: the IndexError Cython raises
    try:
        mod.matmul_checked(a32, b32, c32, 21)
    except IndexError as e:
        assert "Out of bounds on buffer access (axis 1)" in str(e) or "axis 0" in str(e), str(e)
    else:
        raise AssertionError("matmul_checked past the end raised nothing")

    # a collapsed nest without a reduction loop (a 2-D grid under
    # CYOCL_PLAN=gpu): sizes around the work-group's, a continue, the live
    # lastprivate, and a bounds check that fails at the last column
    for n, m in [(3, 3), (5, 40), (70, 300), (300, 7), (2, 9)]:
        u = rng.standard_normal((n, m))
        skip = (rng.random(m) < 0.3).astype(np.intc)
        out = np.full((n, m), np.nan)
        j = mod.stencil_checked(u, out, skip, 1)
        want = np.full((n, m), np.nan)
        core = 0.25 * (((u[:-2, 1:-1] + u[2:, 1:-1]) + u[1:-1, :-2]) + u[1:-1, 2:])
        want[1:-1, 1:-1] = np.where(skip[1:-1].astype(bool), np.nan, core)
        same(out, want, "stencil_checked %s" % ((n, m),))
        assert n < 3 or m < 3 or j == m - 2, (n, m, j)
    try:
        mod.stencil_checked(np.zeros((9, 600)), np.zeros((9, 600)), np.zeros(600, np.intc), 2)
    except IndexError as e:
        assert "Out of bounds on buffer access (axis 1)" in str(e), str(e)
    else:
        raise AssertionError("stencil_checked past the end raised nothing")
