"""The kernels of issue 16's benchmark: inputs, how each implementation calls
them, and the numpy reference every result is checked against.

The compiled implementations (cyocl, Cython) call the functions of the shared
conformance cases (../shared/conformance/cases/cNN_*.pyx, read at run time,
never copied); numpy and CuPy get the same computation written with array
operations (`xp` is numpy or cupy).  A kernel's `size` is its number of
elements (n for vectors, m*m for the m x m matrices of the 2-D kernels).
"""
import math

import numpy as np

MANDEL_MAXIT = 100


class Kernel:
    def __init__(self, name, case, func, sizes_quick, sizes_full, make, compiled, array_impl,
                 result, check, arrays, outputs, square=False, label=None, cost_exp=1.0):
        self.name, self.case, self.func = name, case, func
        self.sizes_quick, self.sizes_full = sizes_quick, sizes_full
        self.make = make              # (size, rng, quick) -> dict of inputs
        self.compiled = compiled      # (module, d) -> return value
        self.array_impl = array_impl  # (xp, d) -> return value (numpy and CuPy)
        self.result = result          # (d, ret) -> the value to check (an array or a float)
        self.check = check            # (got, want) -> (ok, error figure)
        self.arrays = arrays          # names of the arrays in d (resident / device copies)
        self.outputs = outputs        # arrays every element of which the call writes (not uploaded by CuPy)
        self.square = square          # size is m*m; the argument is m
        self.label = label or name
        self.cost_exp = cost_exp      # time ~ size**cost_exp (1.5 for the m^3 products of m*m matrices)

    def dims(self, size):
        return (int(round(math.sqrt(size))),) * 2 if self.square else (size,)

    def shape_str(self, size):
        d = self.dims(size)
        return "x".join(str(x) for x in d)


# ---------------------------------------------------------------- checks

def rel_err(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-300)
    return float(np.max(np.abs(got - want))) / scale if want.size else 0.0


def close(tol):
    def check(got, want):
        if np.shape(got) != np.shape(want):
            return False, float("inf")
        e = rel_err(got, want)
        return (e <= tol and np.all(np.isfinite(got))), e
    return check


def mandel_check(got, want):
    # GPU compilers may contract zr*zr - zi*zi + cr into an FMA (CuPy's nvcc
    # does): a point on the set's boundary then escapes an iteration earlier
    # or later.  Up to 0.1% of the pixels may differ; the figure is the
    # fraction that does.
    if np.shape(got) != np.shape(want):
        return False, float("inf")
    frac = float(np.mean(np.asarray(got) != np.asarray(want)))
    return frac <= 1e-3, frac


# ---------------------------------------------------------------- inputs

def sq(size):
    return int(round(math.sqrt(size)))


def mk_triad(size, rng, quick):
    return {"a": np.zeros(size), "b": rng.random(size), "c": rng.random(size), "s": 3.0}


def mk_dot(size, rng, quick):
    return {"a": rng.random(size), "b": rng.random(size)}


def mk_stencil(size, rng, quick):
    m = sq(size)
    u = rng.random((m, m))
    return {"u": u, "out": np.zeros((m, m))}


def jacobi_steps(quick):
    # 100 steps as in the issue; 10 in --quick, where the 2-core machine's
    # PoCL would spend seconds per call (clref's REF_SMALL runs 20 sweeps).
    return 10 if quick else 100


def mk_jacobi(size, rng, quick):
    m = sq(size)
    u = rng.random((m, m))
    return {"u": u, "tmp": u.copy(), "steps": jacobi_steps(quick)}


def mk_matmul(dtype):
    def mk(size, rng, quick):
        m = sq(size)
        return {"a": rng.random((m, m)).astype(dtype), "b": rng.random((m, m)).astype(dtype),
                "c": np.zeros((m, m), dtype)}
    return mk


def mk_mandel(size, rng, quick):
    m = sq(size)
    return {"out": np.zeros((m, m), np.intc), "x0": -2.0, "y0": -1.5, "dx": 3.0 / m, "dy": 3.0 / m,
            "maxit": MANDEL_MAXIT}


def mk_sigmoid(size, rng, quick):
    m = sq(size)
    return {"x": rng.standard_normal((m, m)), "w": rng.standard_normal((m, m)) / math.sqrt(m),
            "bias": rng.standard_normal(m), "out": np.zeros((m, m))}


def mk_mlp(size, rng, quick):
    m = sq(size)
    return {"x": rng.standard_normal((m, m)), "w1": rng.standard_normal((m, m)) / math.sqrt(m),
            "b1": rng.standard_normal(m), "w2": rng.standard_normal((m, m)) / math.sqrt(m),
            "b2": rng.standard_normal(m), "hidden": np.zeros((m, m)), "out": np.zeros((m, m))}


# ---------------------------------------------------------------- array versions

def xp_step(xp, u, out):
    out[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]) * 0.25


def xp_jacobi(xp, d):
    for _ in range(d["steps"]):
        xp_step(xp, d["u"], d["tmp"])
        xp_step(xp, d["tmp"], d["u"])


def xp_sigmoid(xp, x, w, bias, out):
    s = x @ w
    s += bias
    xp.negative(s, out=s)
    xp.exp(s, out=s)
    s += 1.0
    xp.divide(1.0, s, out=out)


_cupy_triad = None


def xp_triad(xp, d):
    if xp is np:
        return xp.add(d["b"], d["s"] * d["c"], out=d["a"])
    # CuPy: one fused kernel, as clref's (xp.add(b, s * c) is two launches
    # and a temporary: 40 bytes moved per element instead of 24)
    global _cupy_triad
    if _cupy_triad is None:
        _cupy_triad = xp.ElementwiseKernel("float64 b, float64 c, float64 s", "float64 a", "a = b + s * c",
                                           "cyocl_bench_triad")
    return _cupy_triad(d["b"], d["c"], d["s"], d["a"])


_cupy_mandel = None


def xp_mandel(xp, d):
    out = d["out"]
    m, n = out.shape
    if xp is not np:
        global _cupy_mandel
        if _cupy_mandel is None:
            _cupy_mandel = xp.ElementwiseKernel(
                "float64 x0, float64 y0, float64 dx, float64 dy, int32 maxit, int64 cols", "int32 o",
                """
                long r = i / cols, col = i % cols;
                double cr = x0 + col * dx, ci = y0 + r * dy, zr = 0.0, zi = 0.0, t;
                int it = 0;
                while (it < maxit) {
                    t = zr * zr - zi * zi + cr;
                    zi = 2.0 * zr * zi + ci;
                    zr = t;
                    if (zr * zr + zi * zi > 4.0) break;
                    it = it + 1;
                }
                o = it;
                """, "cyocl_bench_mandel")
        _cupy_mandel(d["x0"], d["y0"], d["dx"], d["dy"], np.int32(d["maxit"]), np.int64(n), out)
        return
    # numpy: iterate the points still inside, in the C loop's order of operations
    cr = (d["x0"] + np.arange(n, dtype=np.float64) * d["dx"])[None, :].repeat(m, 0).ravel()
    ci = (d["y0"] + np.arange(m, dtype=np.float64) * d["dy"])[:, None].repeat(n, 1).ravel()
    idx = np.arange(m * n)
    zr = np.zeros(m * n)
    zi = np.zeros(m * n)
    res = np.full(m * n, d["maxit"], dtype=np.intc)
    for it in range(d["maxit"]):
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        esc = zr * zr + zi * zi > 4.0
        if esc.any():
            res[idx[esc]] = it
            keep = ~esc
            idx, zr, zi, cr, ci = idx[keep], zr[keep], zi[keep], cr[keep], ci[keep]
        if idx.size == 0:
            break
    out[...] = res.reshape(m, n)


def xp_dot(xp, d):
    return float(xp.dot(d["a"], d["b"]))   # float(): CuPy brings the value back (synchronises)


# ---------------------------------------------------------------- the table

P2 = [10**2, 10**3, 10**4, 10**5, 10**6, 10**7, 2**26, 10**8]


def m2(ms):
    return [m * m for m in ms]


KERNELS = [
    Kernel("triad", "c01_triad", "triad", [10**2, 10**4, 10**6, 2**23], P2, mk_triad,
           lambda mod, d: mod.triad(d["a"], d["b"], d["c"], d["s"]),
           xp_triad,
           lambda d, r: d["a"], close(1e-15), ["a", "b", "c"], ["a"], label="c01 triad a = b + s*c (f64)"),
    Kernel("dot", "c02_reductions", "dot", [10**2, 10**4, 10**6, 2**23], P2, mk_dot,
           lambda mod, d: mod.dot(d["a"], d["b"]), xp_dot,
           lambda d, r: r, close(1e-10), ["a", "b"], [], label="c02 dot (f64 reduction)"),
    Kernel("stencil", "c03_stencil2d", "jacobi_step", m2([10, 100, 1000]),
           m2([10, 32, 100, 316, 1000, 2048, 4096, 8192]), mk_stencil,
           lambda mod, d: mod.jacobi_step(d["u"], d["out"]),
           lambda xp, d: xp_step(xp, d["u"], d["out"]),
           lambda d, r: d["out"], close(1e-15), ["u", "out"], [], square=True,
           label="c03 jacobi_step: one 5-point sweep (f64)"),
    Kernel("jacobi", "c03_stencil2d", "jacobi", m2([10, 100, 1024]), m2([10, 32, 100, 316, 1000, 2048, 4096]),
           mk_jacobi, lambda mod, d: mod.jacobi(d["u"], d["tmp"], d["steps"]), xp_jacobi,
           lambda d, r: d["u"], close(1e-15), ["u", "tmp"], [], square=True,
           label="c03 jacobi(u, tmp, steps): 2*steps sweeps (f64)"),
    Kernel("matmul", "c04_matmul", "matmul", m2([10, 100, 512]), m2([10, 32, 100, 316, 512, 1024, 2048]),
           mk_matmul(np.float64), lambda mod, d: mod.matmul(d["a"], d["b"], d["c"]),
           lambda xp, d: xp.matmul(d["a"], d["b"], out=d["c"]),
           lambda d, r: d["c"], close(1e-12), ["a", "b", "c"], ["c"], square=True,
           label="c04 matmul, naive (f64)", cost_exp=1.5),
    Kernel("matmul_f32", "c04_matmul", "matmul_f32", m2([10, 100, 256]), m2([10, 32, 100, 316, 512, 1024, 2048]),
           mk_matmul(np.float32), lambda mod, d: mod.matmul_f32(d["a"], d["b"], d["c"]),
           lambda xp, d: xp.matmul(d["a"], d["b"], out=d["c"]),
           lambda d, r: d["c"], close(1e-4), ["a", "b", "c"], ["c"], square=True,
           label="c04 matmul_f32, naive (f32)", cost_exp=1.5),
    Kernel("mandelbrot", "c05_mandelbrot", "mandelbrot", m2([10, 100, 1000]),
           m2([10, 32, 100, 316, 1000, 2048, 4096]), mk_mandel,
           lambda mod, d: mod.mandelbrot(d["out"], d["x0"], d["y0"], d["dx"], d["dy"], d["maxit"]),
           xp_mandel, lambda d, r: d["out"], mandel_check, ["out"], ["out"], square=True,
           label="c05 mandelbrot, maxit %d (int32 out)" % MANDEL_MAXIT),
    Kernel("sigmoid", "c06_mlp", "sigmoid_layer", m2([10, 100, 512]), m2([10, 32, 100, 316, 512, 1024, 2048]),
           mk_sigmoid, lambda mod, d: mod.sigmoid_layer(d["x"], d["w"], d["bias"], d["out"]),
           lambda xp, d: xp_sigmoid(xp, d["x"], d["w"], d["bias"], d["out"]),
           lambda d, r: d["out"], close(1e-12), ["x", "w", "bias", "out"], ["out"], square=True,
           label="c06 sigmoid_layer: sigmoid(x @ w + bias) (f64)", cost_exp=1.5),
    Kernel("mlp", "c06_mlp", "mlp2", m2([10, 100, 256]), m2([10, 32, 100, 316, 512, 1024, 2048]), mk_mlp,
           lambda mod, d: mod.mlp2(d["x"], d["w1"], d["b1"], d["w2"], d["b2"], d["hidden"], d["out"]),
           lambda xp, d: (xp_sigmoid(xp, d["x"], d["w1"], d["b1"], d["hidden"]),
                          xp_sigmoid(xp, d["hidden"], d["w2"], d["b2"], d["out"])),
           lambda d, r: d["out"], close(1e-12), ["x", "w1", "b1", "w2", "b2", "hidden", "out"],
           ["hidden", "out"], square=True, label="c06 mlp2: two sigmoid layers (f64)", cost_exp=1.5),
]

BY_NAME = {k.name: k for k in KERNELS}

# the arrays a call writes (what CuPy's plain call copies back)
WRITTEN = {"triad": ["a"], "dot": [], "stencil": ["out"], "jacobi": ["u", "tmp"], "matmul": ["c"],
           "matmul_f32": ["c"], "mandelbrot": ["out"], "sigmoid": ["out"], "mlp": ["hidden", "out"]}


def select(spec):
    """'c01,c04' or 'triad,jacobi' or 'all' -> kernels, in the table's order."""
    if not spec or spec == "all":
        return list(KERNELS)
    want = [s.strip() for s in spec.split(",") if s.strip()]
    out = []
    for k in KERNELS:
        if any(w == k.name or k.case.startswith(w) or w == k.case for w in want):
            out.append(k)
    unknown = [w for w in want if not any(w == k.name or k.case.startswith(w) for k in KERNELS)]
    if unknown:
        raise SystemExit("bench: unknown kernel(s): %s (known: %s, or c01..c06)"
                         % (", ".join(unknown), ", ".join(k.name for k in KERNELS)))
    return out


def reference(kernel, d):
    """The numpy result of one call on fresh inputs d (d is modified)."""
    ret = kernel.array_impl(np, d)
    return kernel.result(d, ret)
