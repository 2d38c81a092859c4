#!/usr/bin/env python3
"""Native matrix products: cyocl's blocked schedule (ir/plan.c, PLAN_BLOCK)
against Cython 3 + OpenMP on the same .pyx files, side by side in one run
(issue 17: at least 3x faster, the same results bit for bit).

    python3 bench/native_matmul.py [--cyocl build/cyocl] [--n 2048] [--repeat 1]

Kernels: c04 matmul (float64, strided views), c04 matmul_f32 and c06
sigmoid_layer (contiguous), all at n x n x n.  Both modules get the very
same arrays; each call is timed alternately (Cython, cyocl), the median of
--repeat calls is reported, and every output must be equal byte for byte.
OMP_NUM_THREADS applies to both.
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from native_vs_cython import ROOT, SHARED, build_cython, load  # noqa: E402


def main():
    import numpy as np
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cyocl-bench-mm-")
    rng = np.random.default_rng(0)
    n = a.n
    x = rng.random((n, n)) - 0.5
    w = rng.random((n, n)) - 0.5
    bias = rng.random(n)
    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    cases = [
        ("c04_matmul", "matmul", lambda: (x, w, np.zeros((n, n))), 2, "matmul f64"),
        ("c04_matmul", "matmul_f32", lambda: (x32, w32, np.zeros((n, n), np.float32)), 2, "matmul f32"),
        ("c06_mlp", "sigmoid_layer", lambda: (x, w, bias, np.zeros((n, n))), 3, "sigmoid layer f64"),
    ]
    mods = {}
    print("n=%d, threads: OMP_NUM_THREADS=%s, cores=%d" % (n, os.environ.get("OMP_NUM_THREADS", "default"), os.cpu_count()))
    print("%-20s %12s %12s %9s %6s" % ("kernel", "cython s", "cyocl s", "speedup", "same"))
    worst = None
    for case, fname, mkargs, out, label in cases:
        if case not in mods:
            pyx = os.path.join(SHARED, "cases", case + ".pyx")
            cy_dir = build_cython(pyx, os.path.join(work, "cython", case))
            oc_dir = os.path.join(work, "cyocl", case)
            os.makedirs(oc_dir, exist_ok=True)
            subprocess.run([a.cyocl, "build", "--no-opencl", "-o", oc_dir, pyx], check=True)
            mods[case] = (load(cy_dir, case), load(oc_dir, case))
        mc, mo = mods[case]
        tc, to, same = [], [], True
        for _ in range(a.repeat):
            ac, ao = mkargs(), mkargs()
            t0 = time.perf_counter(); getattr(mc, fname)(*ac); tc.append(time.perf_counter() - t0)
            t0 = time.perf_counter(); getattr(mo, fname)(*ao); to.append(time.perf_counter() - t0)
            same &= ac[out].tobytes() == ao[out].tobytes()
        c, o = statistics.median(tc), statistics.median(to)
        worst = c / o if worst is None else min(worst, c / o)
        print("%-20s %12.3f %12.3f %8.1fx %6s" % (label, c, o, c / o, "yes" if same else "NO"), flush=True)
        if not same:
            sys.exit("%s: results differ from Cython's" % label)
    print("slowest speedup over Cython + OpenMP: %.1fx (target >= 3x)" % worst)


if __name__ == "__main__":
    main()
