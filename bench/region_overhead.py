#!/usr/bin/env python3
"""What a native region costs beyond Cython's: c03's jacobi at 10x10 (100
steps, 200 parallel regions a call, each a few nanoseconds of work), built
by cyocl as it is and with its per-region bookkeeping taken out of the
generated C by hand, beside the Cython module, in one process on the same
arrays, batches alternating.

    CYOCL_FORCE=native python3 bench/region_overhead.py [--cyocl build/cyocl] [--work DIR] [--rounds 7]

Variants (the generated C of the region in `_step`, edited after `cyocl build --keep-c`
and compiled with the very command cyocl used):
  cyocl      as built: under CYOCL_FORCE=native without a trace no clock
             reads, one atomic add for the statistics' native_regions
             (cyrt_region_end); otherwise timed and cyrt_region_done
  before     as built before 2026-11-25 05:00 UTC: two clock reads
             (cyrt_now_ns) around the region whenever the runtime is loaded
             and cyrt_region_done, which calls the runtime's native_ran (the
             statistics' native_regions and native_ns, the dispatcher's
             idle check)
  no-clock   without the clock reads (native_ran(0) still called)
  no-call    with the clock reads, without the runtime call
  neither    without both
The figure is each variant's time per call and its ratio to Cython's, the
median of --rounds batches of 200 calls.  Not for CI: a measurement.
"""
import argparse, glob, os, shutil, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from native_vs_cython import load  # noqa: E402
from run import build_cython, CASES  # noqa: E402

START = "cyrt_timing() ? cyrt_now_ns() : 0"
DONE = "cyrt_region_end(&cy_ri0, cy_n0, cy_clock0, &cy_ol0);"
CLOCK = "(cyrt_trace_fd >= 0 || cyrt_ocl) ? cyrt_now_ns() : 0"
SINK = ("static void cy_f__step(cy_view v_u, cy_view v_out) {",
        "static volatile long long cy_sink;\nstatic void cy_f__step(cy_view v_u, cy_view v_out) {")
VARIANTS = {
    "before": [(START, CLOCK), (DONE, "if (cy_clock0) cyrt_region_done(&cy_ri0, cy_n0, cy_clock0, &cy_ol0);")],
    "no-clock": [(START, "0"), (DONE, "if (cyrt_ocl) cyrt_ocl->native_ran(0);")],
    "no-call": [(START, CLOCK), (DONE, "if (cy_clock0) cy_sink += cyrt_now_ns() - cy_clock0;"), SINK],
    "neither": [(START, "0"), (DONE, "")],
}


def build(work, cyocl):
    a = os.path.join(work, "cyocl")
    p = subprocess.run([cyocl, "build", "-v", "--keep-c", "-o", a, os.path.join(CASES, "c03_stencil2d.pyx")],
                       capture_output=True, text=True, env=dict(os.environ, CYOCL_PYTHON=sys.executable))
    if p.returncode:
        raise SystemExit(p.stderr)
    # `cyocl build -v` prints its compiler command ($CC may name another compiler)
    cmd = [ln for ln in p.stderr.splitlines() if " -shared " in ln and " -fopenmp " in ln]
    if not cmd:
        raise SystemExit("region_overhead: no compiler command in cyocl build -v's output:\n" + p.stderr)
    cc = cmd[0].split(": ", 1)[1].split() if cmd[0].startswith("cyocl: ") else cmd[0].split()
    so = next(x for x in cc if x.endswith(".so"))
    cfile = next(x for x in cc if x.endswith(".c"))
    suffix = os.path.basename(so)[os.path.basename(so).index(".", 1):]
    suffix = suffix[suffix.index(".", 1):] if suffix.count(".") > 2 else suffix   # .NAME.XXXX.cpython...so
    src0 = open(os.path.join(a, "c03_stencil2d.c")).read()
    dirs = {"cyocl": a}
    for name, edits in VARIANTS.items():
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        src = src0
        for old, new in edits:
            if src.count(old) != 1:
                raise SystemExit("region_overhead: %r occurs %d times in the generated C (the code moved?)"
                                 % (old, src.count(old)))
            src = src.replace(old, new)
        open(os.path.join(d, "c03_stencil2d.c"), "w").write(src)
        out = os.path.join(d, "c03_stencil2d" + suffix)
        subprocess.run([out if x == so else os.path.join(d, "c03_stencil2d.c") if x == cfile else x for x in cc],
                       check=True)
        for f in glob.glob(os.path.join(a, "cyocl*.so")):
            shutil.copy(f, d)
        dirs[name] = d
    dirs["cython"] = os.path.join(work, "cython")
    build_cython(["c03_stencil2d"], dirs["cython"])
    return dirs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(os.path.dirname(HERE), "build", "cyocl"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    import tempfile
    import numpy as np
    work = a.work or tempfile.mkdtemp(prefix="cyocl-regov-")
    dirs = build(work, os.path.abspath(a.cyocl))
    order = ["cython", "cyocl", "before", "no-clock", "no-call", "neither"]
    mods = {k: load(dirs[k], "c03_stencil2d") for k in order}
    r = np.random.default_rng(0)
    u0, t0 = r.random((10, 10)), np.zeros((10, 10))
    res = {k: [] for k in order}
    for rnd in range(a.rounds):
        for k in order[rnd % len(order):] + order[:rnd % len(order)]:
            m = mods[k]
            u, t = u0.copy(), t0.copy()
            for _ in range(30):
                m.jacobi(u, t, 100)
            ts = []
            for _ in range(200):
                s = time.perf_counter()
                m.jacobi(u, t, 100)
                ts.append(time.perf_counter() - s)
            res[k].append(statistics.median(ts))
    cy = statistics.median(res["cython"])
    print("OMP_NUM_THREADS=%s, CYOCL_FORCE=%s; c03 jacobi(u, t, 100) at 10x10, 200 regions a call" % (
        os.environ.get("OMP_NUM_THREADS", "unset"), os.environ.get("CYOCL_FORCE", "unset")))
    for k in order:
        m = statistics.median(res[k])
        print("%-9s %8.1f us  %.3f x Cython  (%+.1f ns a region)  batches: %s" % (
            k, m * 1e6, m / cy, (m - cy) / 200 * 1e9, " ".join("%.1f" % (x * 1e6) for x in res[k])))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
