#!/usr/bin/env python3
"""Native teams' stalls after device calls: are they the driver's?

    CYOCL_SHARED=../shared python3 bench/native_stalls.py [--cyocl build/cyocl]
        [--kernels stencil316,triad10000] [--reps 4]

Builds c01's triad and c03's stencil step (../shared/conformance/cases) and,
per kernel, in one process with a warm team: before each window one of
  opencl   30 forced OpenCL calls, then cyocl.finish()
  native   30 forced native calls
  sleep5 / sleep30   the process sleeps (the team's threads too)
  busy10 / busy30    the main thread spins, the team's threads sleep
then forced native calls for 80 ms, each timed: the milliseconds spent in
calls over 1 ms (stalls), per window.  After an OpenCL block it also
samples every thread's run and wait time (/proc/self/task/*/schedstat)
while the process is idle for 150 ms: whether the driver's threads work
then.  Stalls after "opencl" only, with driver threads busy meanwhile,
would be the driver's; stalls after sleeps too, with no thread waiting
for a core, are the host's (a VM's vCPUs taken away).
"""
import argparse, os, statistics, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("CYOCL_SHARED") or os.path.abspath(os.path.join(ROOT, "..", "shared"))

CHILD = textwrap.dedent("""
    import os, sys, time, statistics
    sys.path.insert(0, sys.argv[1])
    import numpy as np, cyocl, c01_triad, c03_stencil2d
    which, reps = sys.argv[2], int(sys.argv[3])
    rng = np.random.default_rng(1)
    if which.startswith("stencil"):
        n = int(which[7:]); u = rng.random((n, n)); o = np.zeros_like(u)
        f = lambda: c03_stencil2d.jacobi_step(u, o)
    else:
        n = int(which[5:]); a = np.zeros(n); b = rng.random(n); c = rng.random(n)
        f = lambda: c01_triad.triad(a, b, c, 2.0)
    pid = os.getpid()
    def threads():
        d = {}
        for t in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, t)) as fh: run, wait = fh.read().split()[:2]
                with open("/proc/%d/task/%s/comm" % (pid, t)) as fh: name = fh.read().strip()
            except OSError:
                continue
            d[int(t)] = (name, int(run), int(wait))
        return d
    def pre(kind):
        if kind == "opencl":
            cyocl.force("opencl"); [f() for _ in range(30)]; cyocl.finish()
        elif kind == "native":
            cyocl.force("native"); [f() for _ in range(30)]
        elif kind.startswith("sleep"):
            time.sleep(int(kind[5:]) / 1e3)
        elif kind.startswith("busy"):
            t = time.perf_counter() + int(kind[4:]) / 1e3
            while time.perf_counter() < t:
                pass
    cyocl.force("native"); [f() for _ in range(20)]
    cyocl.force("opencl"); [f() for _ in range(20)]; cyocl.finish()
    kinds = ["opencl", "native", "sleep5", "sleep30", "busy10", "busy30"]
    stalled = {k: [] for k in kinds}
    for rep in range(reps):
        for k in kinds:
            time.sleep(0.1)
            cyocl.force("native"); [f() for _ in range(30)]
            pre(k)
            cyocl.force("native")
            t0 = time.perf_counter(); rec = []
            while time.perf_counter() - t0 < 0.08:
                a0 = time.perf_counter(); f(); rec.append((time.perf_counter() - a0) * 1e6)
            stalled[k].append(sum(x for x in rec if x > 1000) / 1e3)
            if rep == 0 and k == "native":
                med = statistics.median(rec)
        pre("opencl")
        s0 = threads(); time.sleep(0.15); s1 = threads()
        other = sorted(((r - s0.get(t, (n, 0, 0))[1]) / 1e6, n) for t, (n, r, w) in s1.items() if t != pid)[-3:]
        print("%s rep %d: after an OpenCL block, idle 150 ms: busiest other threads (ms run) %s" % (
            which, rep, ", ".join("%s %.2f" % (n, ms) for ms, n in reversed(other))))
    print("%s: native call %.1f us; ms in stalled calls (> 1 ms) per 80 ms window after each, median (max) of %d: %s" % (
        which, med, reps, ", ".join("%s %.1f (%.1f)" % (k, statistics.median(v), max(v)) for k, v in stalled.items())))
""")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--kernels", default="stencil316,triad10000")
    ap.add_argument("--reps", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for c in ("c01_triad", "c03_stencil2d"):
            subprocess.run([args.cyocl, "build", "-o", work, os.path.join(SHARED, "conformance", "cases", c + ".pyx")],
                           check=True, stdout=subprocess.DEVNULL)
        child = os.path.join(work, "child.py")
        with open(child, "w") as fh:
            fh.write(CHILD)
        env = dict(os.environ, CYOCL_CACHE_DIR=os.path.join(work, "cache"))
        for k in args.kernels.split(","):
            subprocess.run([sys.executable, child, work, k, str(args.reps)], check=True, env=env)


if __name__ == "__main__":
    main()
