#!/usr/bin/env python3
"""Side-by-side benchmark: cyocl's native code against Cython 3 + OpenMP on
the same .pyx files, in one run (ratios are what counts; absolute times
depend on the machine).  Also compares translation speed: `cyocl compile`
against `cython -3` on every conformance case.

    python3 bench/native_vs_cython.py [--cyocl build/cyocl] [--repeat 15]
    python3 bench/native_vs_cython.py --small [--rounds 5]

Each kernel is timed as the median of --repeat calls after two warm-up
calls, alternating the two modules call by call so that drifting clocks or
neighbours affect both alike.

--small times calls at 10^2 elements instead (issue 16: a native call within
1.05x of Cython's), where a call is a few microseconds and what counts is
the wrapper, the dispatch and the OpenMP team start: Cython's module, the
`--no-opencl` build, and the default build as users get it (the dispatcher
free to choose, CYOCL_FORCE unset) and forced native.  Each is timed in its
own process (the runtime reads CYOCL_FORCE once), batches of --calls calls,
the lowest batch of each process; the processes alternate over --rounds
rounds and the figure is the median over rounds.
"""
import argparse, glob, importlib, os, shutil, statistics, subprocess, sys, tempfile, textwrap, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("CYOCL_CONFORMANCE") or os.path.abspath(os.path.join(ROOT, "..", "shared", "conformance"))


def build_cython(pyx, out):
    os.makedirs(out, exist_ok=True)
    shutil.copy(pyx, out)
    name = os.path.splitext(os.path.basename(pyx))[0]
    setup = os.path.join(out, "setup_%s.py" % name)
    with open(setup, "w") as f:
        f.write(textwrap.dedent(f"""
            from setuptools import setup, Extension
            from Cython.Build import cythonize
            import numpy
            setup(script_args=["build_ext", "--inplace", "-q"],
                  ext_modules=cythonize([Extension({name!r}, [{name + '.pyx'!r}],
                      include_dirs=[numpy.get_include()],
                      extra_compile_args=["-O3", "-fopenmp"], extra_link_args=["-fopenmp"])],
                      language_level=3, quiet=True))
        """))
    subprocess.run([sys.executable, setup], cwd=out, check=True, capture_output=True)
    return out


def load(path, name):
    sys.path.insert(0, path)
    try:
        spec = importlib.util.spec_from_file_location(
            name, glob.glob(os.path.join(path, name + "*.so"))[0])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.pop(0)


SMALL = {
    # case: (function, arguments at 10^2 elements); the same seed in every process
    "c01_triad": ("triad", lambda np, r: (np.zeros(100), r.random(100), r.random(100), 3.0)),
    "c03_stencil2d": ("jacobi_step", lambda np, r: (r.random((10, 10)), np.zeros((10, 10)))),
    "c04_matmul": ("matmul", lambda np, r: (r.random((10, 10)), r.random((10, 10)), np.zeros((10, 10)))),
}


def child(path, case, calls):
    import numpy as np
    mod = load(path, case)
    fname, mk = SMALL[case]
    f, args, calls = getattr(mod, fname), mk(np, np.random.default_rng(0)), int(calls)
    for _ in range(calls):
        f(*args)
    best = float("inf")
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(calls):
            f(*args)
        best = min(best, (time.perf_counter() - t0) / calls)
    print(best)


def small(a):
    work = tempfile.mkdtemp(prefix="cyocl-bench-small-")
    env = dict(os.environ)
    env.pop("CYOCL_FORCE", None)
    print("threads: OMP_NUM_THREADS=%s, cores=%d; calls at 10^2 elements, us per call (median over %d rounds)"
          % (os.environ.get("OMP_NUM_THREADS", "default"), os.cpu_count(), a.rounds))
    print("%-14s %9s %11s %11s %11s   %s" % ("kernel", "cython", "no-opencl", "default", "forced nat",
                                            "ratios to cython"))
    worst = 0.0
    for case in SMALL:
        pyx = os.path.join(SHARED, "cases", case + ".pyx")
        cy_dir = build_cython(pyx, os.path.join(work, "cython", case))
        no_dir, df_dir = os.path.join(work, "no-opencl", case), os.path.join(work, "default", case)
        for d, extra in ((no_dir, ["--no-opencl"]), (df_dir, [])):
            os.makedirs(d, exist_ok=True)
            subprocess.run([a.cyocl, "build"] + extra + ["-o", d, pyx], check=True, capture_output=True)
        impls = [("cython", cy_dir, env), ("no-opencl", no_dir, env), ("default", df_dir, env),
                 ("forced", df_dir, dict(env, CYOCL_FORCE="native"))]
        times = {k: [] for k, _, _ in impls}
        for _ in range(a.rounds):
            for k, d, e in impls:
                out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", d, case, str(a.calls)],
                                     env=e, check=True, capture_output=True, text=True).stdout
                times[k].append(float(out.split()[-1]))
        med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
        r = {k: med[k] / med["cython"] for k in med}
        worst = max(worst, r["no-opencl"], r["default"])
        print("%-14s %9.2f %11.2f %11.2f %11.2f   no-opencl %.3f, default %.3f, forced native %.3f"
              % (case, med["cython"], med["no-opencl"], med["default"], med["forced"],
                 r["no-opencl"], r["default"], r["forced"]))
    print("worst ratio to cython (no-opencl, default): %.3f (target <= 1.05)" % worst)


def main():
    import numpy as np
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--small", action="store_true", help="time calls at 10^2 elements (see above)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--child", nargs=3, metavar=("DIR", "CASE", "CALLS"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(*a.child)
    if a.small:
        return small(a)
    work = tempfile.mkdtemp(prefix="cyocl-bench-")
    rng = np.random.default_rng(0)

    # Both modules get the very same arrays: where an array lands in memory
    # changes a kernel's speed by several percent, which must not pass for a
    # difference between the compilers.
    cases = {
        "c01_triad": ("triad", lambda: (np.zeros(10**7), rng.random(10**7), rng.random(10**7), 3.0)),
        "c03_stencil2d": ("jacobi_step", lambda: (rng.random((2048, 2048)), np.zeros((2048, 2048)))),
        "c04_matmul": ("matmul", lambda: (rng.random((512, 512)), rng.random((512, 512)), np.zeros((512, 512)))),
    }
    labels = {"c01_triad": "triad 10^7 (f64)", "c03_stencil2d": "jacobi step 2048^2", "c04_matmul": "matmul 512^3 (f64)"}
    print("threads: OMP_NUM_THREADS=%s, cores=%d" % (os.environ.get("OMP_NUM_THREADS", "default"), os.cpu_count()))
    print("%-22s %12s %12s %8s" % ("kernel", "cython ms", "cyocl ms", "ratio"))
    worst = 0.0
    for case, (fname, mkargs) in cases.items():
        pyx = os.path.join(SHARED, "cases", case + ".pyx")
        cy_dir = build_cython(pyx, os.path.join(work, "cython", case))
        oc_dir = os.path.join(work, "cyocl", case)
        os.makedirs(oc_dir, exist_ok=True)
        subprocess.run([a.cyocl, "build", "--no-opencl", "-o", oc_dir, pyx], check=True)
        mc, mo = load(cy_dir, case), load(oc_dir, case)
        args = mkargs()
        fc = lambda: getattr(mc, fname)(*args)
        fo = lambda: getattr(mo, fname)(*args)
        tc, to = [], []
        fc(); fo(); fc(); fo()
        for _ in range(a.repeat):
            t0 = time.perf_counter(); fc(); tc.append(time.perf_counter() - t0)
            t0 = time.perf_counter(); fo(); to.append(time.perf_counter() - t0)
        c, o = statistics.median(tc), statistics.median(to)
        worst = max(worst, o / c)
        print("%-22s %12.3f %12.3f %8.3f" % (labels[case], c * 1e3, o * 1e3, o / c))
    print("worst time ratio cyocl/cython: %.3f (target <= 1.02)" % worst)

    files = [f for f in sorted(glob.glob(os.path.join(SHARED, "cases", "*.pyx")))
             if "# cyocl-extension" not in open(f).read(400)]
    cython = shutil.which("cython") or shutil.which("cython3")
    t0 = time.perf_counter()
    for f in files:
        subprocess.run([a.cyocl, "compile", "-o", os.path.join(work, "x.c"), f], check=True, capture_output=True)
    t_cyocl = time.perf_counter() - t0
    t0 = time.perf_counter()
    for f in files:
        subprocess.run([cython, "-3", "-o", os.path.join(work, "y.c"), f], check=True, capture_output=True)
    t_cython = time.perf_counter() - t0
    print("translate %d cases: cyocl %.3f s, cython -3 %.3f s, speedup %.1fx (target >= 20x)"
          % (len(files), t_cyocl, t_cython, t_cython / t_cyocl))


if __name__ == "__main__":
    main()
