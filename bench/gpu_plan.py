#!/usr/bin/env python3
"""Issue 17's GPU figures in one run, data resident on the device, beside
CuPy and numpy (clref's are printed by ../shared/reference/clref.c itself):

    CYOCL_DEVICE=NVIDIA python3 bench/gpu_plan.py [--cyocl build/cyocl] [--reps 20] [--jacobi]
                                                  [--fp-contract] [--only matmul,sigmoid,mlp,triad]
                                                  [--json FILE]

c04 matmul / matmul_f32 and c06 sigmoid_layer at 2048^2, c06 mlp2 with a
batch of 128 rows at 2048, c03 jacobi 4096^2 x 100 (200 sweeps: the sum of
the kernels' own times from CYOCL_TRACE, and the call), c01 triad 2^26.
Every cyocl result is checked against numpy's (and matmul's bit for bit
against the serial loop's order on sampled elements).  Medians of --reps
calls inside cyocl.resident, under CYOCL_FORCE=opencl, each call followed
by cyocl.finish() (a kernel that reports nothing may still run when its call
returns); --jacobi runs under CYOCL_TRACE (a traced launch waits for its
kernel and times it).  --fp-contract builds with `cyocl build --fp-contract`:
each update s = s + x[i, k] * y[k, j] may be one fused multiply-add, and the
sampled elements are checked against that order (k still increasing).
"""
import fractions
import argparse, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = os.path.join(os.environ.get("CYOCL_SHARED") or os.path.join(ROOT, "..", "shared"), "conformance", "cases")


def med(f, reps, sync=None):
    f()
    if sync:
        sync()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        if sync:
            sync()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3


def jacobi(a, c03_stencil2d, cyocl, rng, trace, row):
    m = 4096
    u = rng.random((m, m))
    t2 = u.copy()
    with cyocl.resident(u, t2):
        c03_stencil2d.jacobi(u, t2, 100)
        open(trace, "w").close()
        t = med(lambda: c03_stencil2d.jacobi(u, t2, 100), 3)
        lines = [json.loads(line) for line in open(trace) if '"kernel_ns"' in line]
    per_call = sum(x["kernel_ns"] for x in lines) / 1e6 / 4  # the warm-up call of med and 3 timed
    row("cyocl jacobi 4096 x 100 (kernels)", per_call, "(call %.2f ms; %d launches per call)" % (t, len(lines) // 4))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--jacobi", action="store_true", help="only jacobi (its kernels' times from CYOCL_TRACE)")
    ap.add_argument("--fp-contract", action="store_true", help="build with --fp-contract (a * b + c may be one FMA)")
    ap.add_argument("--n", type=int, default=2048, help="matrix size (a smaller one to try the script out)")
    ap.add_argument("--triad-n", type=int, default=1 << 26, help="triad's length (a smaller one to try it out)")
    ap.add_argument("--only", default="matmul,sigmoid,mlp,triad", help="which figures (default: all)")
    ap.add_argument("--json", help="also write every row's ms here (triad's GB/s too)")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="gpu_plan_")
    trace = os.path.join(work, "trace.jsonl")
    os.environ.update(CYOCL_FORCE="opencl")
    if a.jacobi:
        os.environ.update(CYOCL_TRACE=trace)
    fc = ["--fp-contract"] if a.fp_contract else []
    only = a.only.split(",")
    procs = [subprocess.Popen([a.cyocl, "build"] + fc + [os.path.join(CASES, c + ".pyx"), "-o", work])
             for c in ("c01_triad", "c03_stencil2d", "c04_matmul", "c06_mlp")]
    if any(p.wait() for p in procs):
        sys.exit("build failed")
    sys.path.insert(0, work)
    import numpy as np
    import cyocl, c01_triad, c03_stencil2d, c04_matmul, c06_mlp
    try:
        import cupy as cp
        csync = cp.cuda.Device().synchronize
    except Exception as e:  # noqa: BLE001
        cp = None
        print("cupy: %s" % e)
    rng = np.random.default_rng(0)
    sig = lambda xp, x, w, b: 1 / (1 + xp.exp(-(x @ w + b)))
    out = {}

    def row(name, ms, extra=""):
        out[name] = ms
        print("%-34s %9.3f ms %s" % (name, ms, extra), flush=True)

    if a.jacobi:
        jacobi(a, c03_stencil2d, cyocl, rng, trace, row)
        return dump(a, out)
    n = a.n
    tag = " +fma" if a.fp_contract else ""
    F = fractions.Fraction

    def fma(x, y, z, dt):
        # exact x * y + z, rounded once to dt (float64's rounding of an exact
        # Fraction is correct; for float32 the product and sum are exact in
        # a Fraction, so float32(float64(r)) could double-round: rare, counted)
        r = F(float(x)) * F(float(y)) + F(float(z))
        return dt(float(r)) if dt == np.float64 else np.float32(float(r))
    for name, dt in (("matmul", np.float64), ("matmul_f32", np.float32)) if "matmul" in only else ():
        x, y = rng.standard_normal((n, n)).astype(dt), rng.standard_normal((n, n)).astype(dt)
        c = np.zeros((n, n), dt)
        f = getattr(c04_matmul, name)
        with cyocl.resident(x, y, c):
            t = med(lambda: f(x, y, c), a.reps, cyocl.finish)
        # Cython's order on sampled elements: s = 0; s = s + x[i, k] * y[k, j], k increasing
        # (--fp-contract: s = fma(x[i, k], y[k, j], s), k increasing)
        idx = rng.integers(0, n, (16 if a.fp_contract else 64, 2))
        exact = 0
        for i, j in idx:
            s = dt(0)
            for k in range(n):
                s = fma(x[i, k], y[k, j], s, dt) if a.fp_contract else dt(s + dt(x[i, k] * y[k, j]))
            exact += s.tobytes() == c[i, j].tobytes()
        ok = np.allclose(c, x @ y, rtol=1e-3 if dt == np.float32 else 1e-9, atol=1e-3 if dt == np.float32 else 1e-9)
        row("cyocl %s %d%s" % (name, n, tag), t, "(%.1f TFLOP/s; %d/%d sampled bit-equal to the serial %sorder; close "
            "to numpy: %s)" % (2 * n ** 3 / t / 1e9, exact, len(idx), "FMA " if a.fp_contract else "", ok))
        if cp is not None:
            X, Y = cp.asarray(x), cp.asarray(y)
            row("cupy %s %d" % (name, n), med(lambda: X @ Y, a.reps, csync))
    if "sigmoid" in only:
        sigmoid(a, np, cp, csync if cp is not None else None, cyocl, c06_mlp, rng, sig, row, tag)
    if "mlp" in only:
        mlp(a, np, cp, csync if cp is not None else None, cyocl, c06_mlp, rng, sig, row, out)
    if "triad" in only:
        triad(a, np, cyocl, c01_triad, rng, row)
    dump(a, out)


def dump(a, out):
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"ms": out, "reps": a.reps, "n": a.n, "triad_n": a.triad_n}, f, indent=1)


def sigmoid(a, np, cp, csync, cyocl, c06_mlp, rng, sig, row, tag):
    n = a.n
    x, w, b = rng.standard_normal((n, n)), rng.standard_normal((n, n)) / 45, rng.standard_normal(n)
    o = np.zeros((n, n))
    with cyocl.resident(x, w, b, o):
        t = med(lambda: c06_mlp.sigmoid_layer(x, w, b, o), a.reps, cyocl.finish)
    row("cyocl sigmoid_layer %d%s" % (n, tag), t, "(close to numpy: %s)" % np.allclose(o, sig(np, x, w, b), rtol=1e-12, atol=1e-12))
    if cp is not None:
        X, W, B = map(cp.asarray, (x, w, b))
        row("cupy sigmoid_layer %d" % n, med(lambda: sig(cp, X, W, B), a.reps, csync))


def mlp(a, np, cp, csync, cyocl, c06_mlp, rng, sig, row, out):
    n = 2048
    x = rng.standard_normal((128, n))
    w1, w2 = rng.standard_normal((n, n)) / 45, rng.standard_normal((n, n)) / 45
    b1, b2 = rng.standard_normal(n), rng.standard_normal(n)
    h, o = np.zeros((128, n)), np.zeros((128, n))
    want = sig(np, sig(np, x, w1, b1), w2, b2)
    row("numpy mlp2 batch 128 at 2048", med(lambda: sig(np, sig(np, x, w1, b1), w2, b2), a.reps))
    with cyocl.resident(x, w1, b1, w2, b2, h, o):
        t = med(lambda: c06_mlp.mlp2(x, w1, b1, w2, b2, h, o), a.reps, cyocl.finish)
    row("cyocl mlp2 batch 128 at 2048", t, "(numpy / cyocl = %.1f; close to numpy: %s)"
        % (out["numpy mlp2 batch 128 at 2048"] / t, np.allclose(o, want, rtol=1e-12, atol=1e-12)))
    if cp is not None:
        X, W1, W2, B1, B2 = map(cp.asarray, (x, w1, w2, b1, b2))
        row("cupy mlp2 batch 128 at 2048", med(lambda: sig(cp, sig(cp, X, W1, B1), W2, B2), a.reps, csync))


def triad(a, np, cyocl, c01_triad, rng, row):
    nt = a.triad_n
    ta, tb, tc = np.zeros(nt), rng.random(nt), rng.random(nt)
    with cyocl.resident(ta, tb, tc):
        t = med(lambda: c01_triad.triad(ta, tb, tc, 3.0), a.reps, cyocl.finish)

        # clref's method: 20 launches back to back, then one finish (a
        # triad reports nothing back: each call returns once its kernel is
        # enqueued), per call
        def batch():
            for _ in range(20):
                c01_triad.triad(ta, tb, tc, 3.0)
        tb20 = med(batch, max(a.reps // 4, 3), cyocl.finish) / 20
    name = "cyocl triad 2^26" if nt == 1 << 26 else "cyocl triad %d" % nt
    ok = np.array_equal(ta, tb + 3.0 * tc)
    row(name, t, "(%.0f GB/s, a call and cyocl.finish(); correct: %s)" % (24 * nt / t / 1e6, ok))
    row(name + " back to back", tb20, "(%.0f GB/s, 20 calls then cyocl.finish(), as clref times its kernel)" % (
        24 * nt / tb20 / 1e6))


if __name__ == "__main__":
    main()
