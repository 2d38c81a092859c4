#!/usr/bin/env python3
"""The device-buffer pool (docs/runtime.md, "The buffer pool") on plain
forced-OpenCL calls, which make and free their device buffers at every call:
each measure runs in fresh processes with the pool and with CYOCL_POOL_MB=0,
alternating (pool, nopool, then nopool, pool).

    CYOCL_DEVICE=NVIDIA python3 bench/pool.py [--cyocl build/cyocl] [--work DIR]
        [--n 4096] [--m 2048] [--rounds 2]

  calls   ms per call (median of 7 / 11 after warm-up) of c03 jacobi(u, tmp,
          100) on n x n and c06 sigmoid_layer on m x m, CYOCL_FORCE=opencl;
          and once natively (CYOCL_FORCE=native) for reference
  stall   in one process: a plain OpenCL jacobi(u, tmp, 10) call, then at once
          a native jacobi_step on other n x n arrays (the buffers just freed:
          without the pool the driver releases them meanwhile), then the same
          native step after 0.4 s of quiet; medians of 9

The conformance cases come from $CYOCL_SHARED or ../shared.
"""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CALLS = r'''
import json, math, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1]); n, m = int(sys.argv[2]), int(sys.argv[3])
import cyocl, c03_stencil2d as s, c06_mlp as mm
rng = np.random.default_rng(0)
out = {}
def timed(name, f, warm, k):
    for _ in range(warm): f()
    ts = []
    for _ in range(k):
        t0 = time.perf_counter(); f(); ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    out[name] = {"median_ms": round(ts[len(ts) // 2], 2), "min_ms": round(ts[0], 2), "max_ms": round(ts[-1], 2)}
u = rng.random((n, n)); t = u.copy()
timed("jacobi%dx100" % n, lambda: s.jacobi(u, t, 100), 1, 7)
x = rng.standard_normal((m, m)); w = rng.standard_normal((m, m)) / math.sqrt(m)
b = rng.standard_normal(m); o = np.zeros((m, m))
timed("sigmoid%d" % m, lambda: mm.sigmoid_layer(x, w, b, o), 2, 11)
assert np.allclose(o, 1 / (1 + np.exp(-(x @ w + b))))
st = cyocl.stats()
out["stats"] = {k: st[k] for k in st if k.startswith("pool") or k in ("launches", "fallbacks")}
print(json.dumps(out))
'''

STALL = r'''
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1]); n = int(sys.argv[2])
import cyocl, c03_stencil2d as s
rng = np.random.default_rng(0)
u = rng.random((n, n)); t = u.copy(); a = rng.random((n, n)); b = np.zeros_like(a)
cyocl.force("opencl"); s.jacobi(u, t, 10)
cyocl.force("native"); s.jacobi_step(a, b); s.jacobi_step(a, b)
cl, after, quiet = [], [], []
for i in range(9):
    cyocl.force("opencl")
    t0 = time.perf_counter(); s.jacobi(u, t, 10); t1 = time.perf_counter()
    cyocl.force("native")
    s.jacobi_step(a, b); t2 = time.perf_counter()
    time.sleep(0.4)
    t3 = time.perf_counter(); s.jacobi_step(a, b); t4 = time.perf_counter()
    cl.append((t1 - t0) * 1e3); after.append((t2 - t1) * 1e3); quiet.append((t4 - t3) * 1e3)
med = lambda v: round(sorted(v)[len(v) // 2], 2)
st = cyocl.stats()
print(json.dumps({"opencl_jacobi10_ms": med(cl), "native_step_after_ms": med(after),
                  "native_step_after_max_ms": round(max(after), 2), "native_step_quiet_ms": med(quiet),
                  "pool_hits": st["pool_hits"], "pool_misses": st["pool_misses"]}))
'''


def child(code, args, mode):
    env = dict(os.environ)
    env.pop("CYOCL_POOL_MB", None)
    env.pop("CYOCL_FORCE", None)
    if mode == "nopool":
        env["CYOCL_POOL_MB"] = "0"
    if code is CALLS:
        env["CYOCL_FORCE"] = "native" if mode == "native" else "opencl"
    p = subprocess.run([sys.executable, "-c", code] + args, env=env, capture_output=True, text=True, timeout=300)
    lines = p.stdout.strip().splitlines()
    if p.returncode or not lines:
        raise SystemExit("pool.py: %s failed:\n%s%s" % (mode, p.stdout, p.stderr[-3000:]))
    return json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cyocl", default=os.path.join(HERE, "..", "build", "cyocl"))
    ap.add_argument("--work")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--m", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    shared = os.environ.get("CYOCL_SHARED") or os.path.join(HERE, "..", "..", "shared")
    work = a.work or tempfile.mkdtemp(prefix="cyocl-pool-")
    for c in ("c03_stencil2d", "c06_mlp"):
        r = subprocess.run([a.cyocl, "build", "-o", work, os.path.join(shared, "conformance", "cases", c + ".pyx")],
                           capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(r.stdout + r.stderr)
    for rnd in range(a.rounds):
        for mode in ("pool", "nopool") if rnd % 2 == 0 else ("nopool", "pool"):
            print("calls", mode, rnd, json.dumps(child(CALLS, [work, str(a.n), str(a.m)], mode)), flush=True)
    print("calls native", json.dumps(child(CALLS, [work, str(a.n), str(a.m)], "native")), flush=True)
    for rnd in range(a.rounds):
        for mode in ("pool", "nopool") if rnd % 2 == 0 else ("nopool", "pool"):
            print("stall", mode, rnd, json.dumps(child(STALL, [work, str(a.n)], mode)), flush=True)


if __name__ == "__main__":
    main()
