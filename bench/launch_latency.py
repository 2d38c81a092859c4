#!/usr/bin/env python3
"""The cost of a call that does almost nothing: a triad prange on one
element, data resident on the device, beside clref's launch + finish (issue
16: "call with one element <= 20 µs").

    python3 bench/launch_latency.py [--cyocl build/cyocl] [--calls 3000] [--rounds 3]
                                    [--json FILE] [--no-clref]

Per round, one fresh process per setting (OpenCL forced, native forced);
each runs 200 untimed calls, then --calls timed ones, resident (inside
cyocl.resident) and plain.  The figure is the median over all rounds' calls.
clref (../shared/reference/clref.c) is built and run once on the same
platform as cyocl's device (CYOCL_DEVICE, default the first GPU platform it
finds; REF_PLATFORM names clref's), and its launch_finish_us is printed
beside.  A triad reports nothing back (no error word, no reduction): the
runtime returns before its kernel ends ("resident, returned"), so a call
followed by cyocl.finish() (launch + finish, clref's figure) and one followed
by a host read of the one element are timed too.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("CYOCL_SHARED") or os.path.abspath(os.path.join(ROOT, "..", "shared"))

PYX = textwrap.dedent("""
    # cython: boundscheck=False, wraparound=False
    from cython.parallel import prange

    def triad(double[::1] a, double[::1] b, double[::1] c, double s):
        cdef Py_ssize_t i
        for i in prange(a.shape[0], nogil=True):
            a[i] = b[i] + s * c[i]
""")

CHILD = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import numpy as np, cyocl, lat
    calls = int(sys.argv[2])
    a, b, c = np.zeros(1), np.ones(1), np.ones(1)
    res = {"plain": [], "resident, returned": [], "resident + finish": [], "resident + read": []}
    def timed(kind, after):
        for k in range(200 + calls):
            t0 = time.perf_counter()
            lat.triad(a, b, c, 2.0)
            after()
            if k >= 200:
                res[kind].append(time.perf_counter() - t0)
    timed("plain", lambda: None)
    with cyocl.resident(a, b, c):
        timed("resident, returned", lambda: None)
        timed("resident + finish", cyocl.finish)
        timed("resident + read", lambda: cyocl.to_host(a))
    assert a[0] == 3.0, a
    res["stats"] = cyocl.stats()
    print(json.dumps(res, default=str))
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="also write the medians (and min, 10th and 90th percentiles), µs, here")
    ap.add_argument("--no-clref", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cyocl-latency-")
    src = os.path.join(work, "lat.pyx")
    with open(src, "w") as f:
        f.write(PYX)
    env = dict(os.environ, CYOCL_PYTHON=sys.executable)
    subprocess.run([a.cyocl, "build", "-o", work, src], check=True, env=env)
    settings = {"opencl": "opencl", "native": "native"}
    times = {s: {} for s in settings}
    for _ in range(a.rounds):
        for s, force in settings.items():
            p = subprocess.run([sys.executable, "-c", CHILD, work, str(a.calls)],
                               env=dict(env, CYOCL_FORCE=force), capture_output=True, text=True)
            if p.returncode:
                raise SystemExit("latency: child failed (%s):\n%s" % (s, p.stderr[-2000:]))
            r = json.loads(p.stdout.strip().splitlines()[-1])
            for kind in ("plain", "resident, returned", "resident + finish", "resident + read"):
                times[s].setdefault(kind, []).extend(r[kind])
    print("triad on one element, f64; median µs over %d rounds x %d calls" % (a.rounds, a.calls))
    for s in settings:
        print("  %-7s " % s + "   ".join("%s %.1f" % (k, statistics.median(v) * 1e6)
                                          for k, v in times[s].items()))
    if a.json:
        def q(v, f):
            v = sorted(v)
            return v[min(len(v) - 1, int(f * len(v)))] * 1e6
        with open(a.json, "w") as f:
            json.dump({"rounds": a.rounds, "calls": a.calls,
                       "us": {s: {k: {"median": statistics.median(v) * 1e6, "min": min(v) * 1e6,
                                      "p10": q(v, 0.1), "p90": q(v, 0.9), "n": len(v)}
                                  for k, v in times[s].items()} for s in settings}}, f, indent=1)
    if a.no_clref:
        return
    clref = os.path.join(SHARED, "reference", "clref.c")
    exe = os.path.join(work, "clref")
    if os.path.exists(clref) and subprocess.run(["cc", "-O2", "-o", exe, clref, "-lOpenCL", "-lm"],
                                                capture_output=True).returncode == 0:
        p = subprocess.run([exe], capture_output=True, text=True,
                           env=dict(os.environ, REF_SMALL=os.environ.get("REF_SMALL", "1")))
        for line in p.stdout.splitlines():
            if "launch" in line:
                print("  clref   " + line.strip())
    else:
        print("  clref   not built (no ../shared/reference/clref.c or no OpenCL headers)")


if __name__ == "__main__":
    main()
