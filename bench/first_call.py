#!/usr/bin/env python3
"""The first call in a second process (issue 16: "first call in a new
process with a warm kernel cache <= 5 ms more than the second call, device
start-up included"), cyocl as users get it (the dispatcher).

    python3 bench/first_call.py [--cyocl build/cyocl] [--n 100] [--procs 3] [--func dot] [--json FILE]

Builds c02's dot and c01's triad (../shared/conformance/cases) into one
module, then runs a first process that calls --func 300 times at --n
elements (its kernel cache and calibration are stored), then --procs fresh
processes that share that cache.  Each of those times its import, its
first three calls (time.perf_counter around the call) and prints them with
the trace's line for each (CYOCL_TRACE: impl, reason, predictions, the
region's own time), so where the first call's time goes can be read off.
"""
import argparse, json, os, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("CYOCL_SHARED") or os.path.abspath(os.path.join(ROOT, "..", "shared"))

PYX = textwrap.dedent("""
    # cython: boundscheck=False, wraparound=False
    from cython.parallel import prange

    def dot(double[::1] a, double[::1] b):
        cdef Py_ssize_t i
        cdef double acc = 0.0
        for i in prange(a.shape[0], nogil=True):
            acc += a[i] * b[i]
        return acc

    def triad(double[::1] a, double[::1] b, double[::1] c, double s):
        cdef Py_ssize_t i
        for i in prange(a.shape[0], nogil=True):
            a[i] = b[i] + s * c[i]
""")

CHILD = textwrap.dedent("""
    import json, os, sys, time
    t0 = time.perf_counter()
    sys.path.insert(0, sys.argv[1])
    import numpy as np, cyocl
    t1 = time.perf_counter()
    import fc
    t2 = time.perf_counter()
    n, calls, func = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    a, b, c = np.ones(n), np.ones(n), np.ones(n)
    f = (lambda: fc.dot(a, b)) if func == "dot" else (lambda: fc.triad(a, b, c, 2.0))
    ts = []
    for k in range(calls):
        s = time.perf_counter()
        f()
        ts.append(time.perf_counter() - s)
    print(json.dumps({"import_cyocl": t1 - t0, "import_module": t2 - t1, "calls": ts[:3],
                      "median": sorted(ts)[len(ts) // 2], "stats": cyocl.stats()}))
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--func", default="dot", choices=["dot", "triad"])
    ap.add_argument("--json", help="also write every process's times (seconds) and trace lines here")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cyocl-first-")
    src = os.path.join(work, "fc.pyx")
    with open(src, "w") as f:
        f.write(PYX)
    env = dict(os.environ, CYOCL_PYTHON=sys.executable, CYOCL_CACHE_DIR=os.path.join(work, "cache"))
    env.pop("CYOCL_FORCE", None)
    subprocess.run([a.cyocl, "build", "-o", work, src], check=True, env=env)

    def child(calls, trace=None):
        e = dict(env)
        if trace:
            e["CYOCL_TRACE"] = trace
        p = subprocess.run([sys.executable, "-c", CHILD, work, str(a.n), str(calls), a.func], env=e,
                           capture_output=True, text=True)
        if p.returncode:
            raise SystemExit("first_call: child failed:\n" + p.stderr[-2000:])
        return json.loads(p.stdout.strip().splitlines()[-1])

    r = child(300)
    log = {"n": a.n, "func": a.func, "first_process": r, "procs": []}
    print("first process: median %.1f us, stats %s" % (r["median"] * 1e6, {k: r["stats"][k] for k in (
        "calls_native", "calls_opencl", "calibration_runs", "device_state")}))
    for i in range(a.procs):
        tr = os.path.join(work, "trace%d.jsonl" % i)
        r = child(20, tr)
        c = r["calls"]
        print("process %d: import cyocl %.1f ms, module %.1f ms; calls %s us; median %.1f us; first - second %.2f ms"
              % (i + 2, r["import_cyocl"] * 1e3, r["import_module"] * 1e3, ", ".join("%.1f" % (x * 1e6) for x in c),
                 r["median"] * 1e6, (c[0] - c[1]) * 1e3))
        with open(tr) as f:
            lines = [json.loads(line) for line in list(f)[:3]]
        r["trace"] = lines
        r["first_minus_second"] = c[0] - c[1]
        log["procs"].append(r)
        for d in lines:
            print("    %s %s ns=%s pred=%s build=%s" % (d.get("impl"), d.get("reason"), d.get("ns"),
                                                        d.get("predicted_ns"), d.get("build")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(log, f, indent=1, default=str)


if __name__ == "__main__":
    main()
