#!/usr/bin/env python3
"""c03's jacobi(u, t, STEPS) at N x N on OpenCL, plain and inside
cyocl.resident(u, t), for one or more cyocl binaries side by side in one run
(a "no slowdown" check between two trees: ratios count).

    python3 bench/jacobi_resident.py --cyocl build/cyocl [--cyocl old/build/cyocl] [--n 4096] [--steps 100]
                                     [--calls 5] [--rounds 3] [--force opencl] [--json FILE]

Every binary builds c03_stencil2d.pyx into a directory of its own; each
round runs one fresh process per binary, in turn, so drifting clocks touch
all alike.  Per process: one warm-up call of each kind, then --calls timed
calls; the figure is the median over all rounds.  CYOCL_FORCE=opencl is set
(CYOCL_DEVICE picks the device; --force auto: the dispatcher's choice, as
users get it, with cyocl.stats()'s calls per side in --json).
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("CYOCL_CONFORMANCE") or os.path.abspath(os.path.join(ROOT, "..", "shared", "conformance"))

CHILD = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import numpy as np, cyocl, c03_stencil2d as m
    n, steps, calls = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(0)
    u = rng.random((n, n)); t = u.copy()
    res = {"plain": [], "resident": []}
    m.jacobi(u, t, steps)
    for _ in range(calls):
        t0 = time.perf_counter(); m.jacobi(u, t, steps); res["plain"].append(time.perf_counter() - t0)
    with cyocl.resident(u, t):
        m.jacobi(u, t, steps)
        cyocl.finish()   # or the first timed call waits for the warm-up's kernels too
        for _ in range(calls):
            # a kernel that reports nothing may still run when the call
            # returns (a quiet launch): finish() waits for it
            t0 = time.perf_counter(); m.jacobi(u, t, steps); cyocl.finish()
            res["resident"].append(time.perf_counter() - t0)
    res["device"] = [d.get("name") for d in cyocl.devices()]
    st = cyocl.stats()
    res["stats"] = {k: st.get(k) for k in ("calls_native", "calls_opencl")}
    print(json.dumps(res))
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", action="append", required=True)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--force", default="opencl", help="CYOCL_FORCE for the runs; 'auto': none (the dispatcher)")
    ap.add_argument("--json", help="also write every call's time (ms) and the medians here")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cyocl-jacobi-")
    pyx = os.path.join(SHARED, "cases", "c03_stencil2d.pyx")
    dirs = []
    for k, c in enumerate(a.cyocl):
        d = os.path.join(work, "b%d" % k)
        subprocess.run([c, "build", "-o", d, pyx], check=True, capture_output=True)
        dirs.append(d)
    env = dict(os.environ, CYOCL_FORCE=a.force)
    if a.force == "auto":
        env.pop("CYOCL_FORCE")
    times = [{"plain": [], "resident": []} for _ in dirs]
    stats = [[] for _ in dirs]
    for _ in range(a.rounds):
        for k, d in enumerate(dirs):
            p = subprocess.run([sys.executable, "-c", CHILD, d, str(a.n), str(a.steps), str(a.calls)],
                               env=env, capture_output=True, text=True, check=True)
            r = json.loads(p.stdout.strip().splitlines()[-1])
            for kind in ("plain", "resident"):
                times[k][kind] += r[kind]
            stats[k].append(r["stats"])
    print("jacobi(u, t, %d), %dx%d, f64, CYOCL_FORCE=%s: median ms" % (a.steps, a.n, a.n, a.force))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": a.n, "steps": a.steps, "force": a.force, "runs": [
                {"cyocl": c, "median_ms": {kind: statistics.median(times[k][kind]) * 1e3 for kind in times[k]},
                 "ms": {kind: [t * 1e3 for t in times[k][kind]] for kind in times[k]}, "stats": stats[k]}
                for k, c in enumerate(a.cyocl)]}, f, indent=1)
    base = None
    for k, c in enumerate(a.cyocl):
        med = {kind: statistics.median(times[k][kind]) * 1e3 for kind in ("plain", "resident")}
        base = base or med
        print("  %-40s plain %8.2f  resident %8.2f   (ratio to the first: %.3f / %.3f)" % (
            c, med["plain"], med["resident"], med["plain"] / base["plain"], med["resident"] / base["resident"]))


if __name__ == "__main__":
    main()
