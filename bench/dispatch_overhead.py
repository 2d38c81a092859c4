#!/usr/bin/env python3
"""The dispatcher's own cost on a call too small for a device: a triad
prange on 10^2 elements (f64), cyocl as users get it (`auto`) against
`CYOCL_FORCE=native`, side by side (issue 16: "auto within 1.10x of the
fastest option").

    python3 bench/dispatch_overhead.py [--cyocl build/cyocl] [--n 100] [--calls 20000] [--rounds 3]

Per round, one fresh process per setting, alternating; each calls the
function until the device is ready (auto; at most 10 s), sleeps 0.3 s (the
driver's busy time after start-up, when native teams run short), makes 2000
untimed calls, then --calls timed ones as plain calls and as many inside
cyocl.resident.  The figure is the median over all rounds' calls; `fast`
is the share of auto's decisions taken on the hot path (a settled
decision, cyocl.stats()' fast_decisions), `device` its calls that ran on the
device (rechecks).  OMP_NUM_THREADS is left as it is.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, textwrap

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
    import numpy as np, cyocl, ovh
    n, calls = int(sys.argv[2]), int(sys.argv[3])
    a, b, c = np.zeros(n), np.ones(n), np.ones(n)
    t_end = time.time() + 10
    while cyocl.stats()["device_state"] in ("not started", "starting") and time.time() < t_end:
        ovh.triad(a, b, c, 2.0)
    time.sleep(0.3)
    res = {}
    def timed(kind):
        for k in range(2000):
            ovh.triad(a, b, c, 2.0)
        s0 = cyocl.stats()
        t = []
        for k in range(calls):
            t0 = time.perf_counter_ns()
            ovh.triad(a, b, c, 2.0)
            t.append(time.perf_counter_ns() - t0)
        s1 = cyocl.stats()
        res[kind] = t
        res[kind + " fast"] = s1["fast_decisions"] - s0["fast_decisions"]
        res[kind + " device"] = s1["calls_opencl"] - s0["calls_opencl"]
    timed("plain")
    with cyocl.resident(a, b, c):
        timed("resident")
    assert (a == 3.0).all()
    res["device_state"] = cyocl.stats()["device_state"]
    print(json.dumps(res))
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                    "build", "cyocl"))
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cyocl-ovh-")
    src = os.path.join(work, "ovh.pyx")
    with open(src, "w") as f:
        f.write(PYX)
    env = dict(os.environ, CYOCL_PYTHON=sys.executable, CYOCL_CACHE_DIR=os.path.join(work, "cache"))
    subprocess.run([a.cyocl, "build", "-o", work, src], check=True, env=env)
    settings = {"auto": None, "native": "native"}
    times = {s: {"plain": [], "resident": []} for s in settings}
    extra = {s: {} for s in settings}
    for _ in range(a.rounds):
        for s, force in settings.items():
            e = dict(env)
            e.pop("CYOCL_FORCE", None)
            if force:
                e["CYOCL_FORCE"] = force
            p = subprocess.run([sys.executable, "-c", CHILD, work, str(a.n), str(a.calls)], env=e,
                               capture_output=True, text=True)
            if p.returncode:
                raise SystemExit("dispatch_overhead: child failed (%s):\n%s" % (s, p.stderr[-2000:]))
            r = json.loads(p.stdout.strip().splitlines()[-1])
            for kind in ("plain", "resident"):
                times[s][kind].extend(r[kind])
                for x in ("fast", "device"):
                    extra[s][kind + " " + x] = extra[s].get(kind + " " + x, 0) + r[kind + " " + x]
            extra[s]["device_state"] = r["device_state"]
    print("triad on %d elements, f64; median ns per call over %d rounds x %d calls" % (a.n, a.rounds, a.calls))
    med = {s: {k: statistics.median(v) for k, v in times[s].items()} for s in settings}
    for kind in ("plain", "resident"):
        au, na = med["auto"][kind], med["native"][kind]
        tot = a.rounds * a.calls
        print("  %-8s auto %7.0f ns   native %7.0f ns   auto/native %.3f   auto's overhead %+5.0f ns   "
              "fast %.1f%%  device calls %d" % (kind, au, na, au / na, au - na,
                                                100.0 * extra["auto"][kind + " fast"] / tot,
                                                extra["auto"][kind + " device"]))
    print("  device: %s" % extra["auto"]["device_state"])


if __name__ == "__main__":
    main()
