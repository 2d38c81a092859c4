#!/usr/bin/env python3
"""First-call latency with a cold and with a warm OpenCL kernel cache
(issue 4; docs/cache.md has the table).

    python3 bench/cache_latency.py [--cyocl build/cyocl] [--device SUBSTR|N]
                                   [--reps 7] [--n 1000000]

Builds one module with three OpenCL regions (a triad, a sum reduction, a
Jacobi step), then runs it in fresh Python processes under
CYOCL_FORCE=opencl:

  cold   each process gets an empty CYOCL_CACHE_DIR (and empty driver caches:
         POCL_CACHE_DIR, CUDA_CACHE_PATH): every program is compiled
  warm   the processes share caches that one untimed run filled: every
         program is loaded from its binary (and the driver finds its own
         translation of it, as on a machine that ran the module before)
  off    CYOCL_CACHE=0 with empty driver caches, for reference

Inside each process the first call of each function is timed (program build
or load + transfers + kernel), then the median of five more calls (steady
state, the program already in memory).  Import time is reported apart.  The
table gives medians over --reps processes; the trace's build field is
checked (cold: compiled, warm: cache), so a cache that silently failed shows
up as an error, not as a fast cold run.  Not a test.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PYX = textwrap.dedent("""
    # cython: boundscheck=False, wraparound=False
    from cython.parallel import prange

    def triad(double[:] a, double[:] b, double[:] c, double s):
        cdef Py_ssize_t i
        for i in prange(a.shape[0], nogil=True):
            a[i] = b[i] + s * c[i]

    def total(double[:] x):
        cdef Py_ssize_t i
        cdef double t = 0
        for i in prange(x.shape[0], nogil=True):
            t += x[i] * x[i]
        return t

    def jacobi(double[:, :] u, double[:, :] v):
        cdef Py_ssize_t i, j
        for i in prange(1, u.shape[0] - 1, nogil=True):
            for j in range(1, u.shape[1] - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
""")

# A second module, run before the timed one when priming: it brings OpenCL
# up in the process (loader, platform, context, queue: a per-process cost no
# kernel cache can remove), so the timed first calls show what the cache is
# about: getting the program, and the first launch of each kernel.
PRIME_PYX = textwrap.dedent("""
    from cython.parallel import prange

    def touch(double[:] a):
        cdef Py_ssize_t i
        for i in prange(a.shape[0], nogil=True):
            a[i] = a[i] + 1.0
""")

CHILD = textwrap.dedent("""
    import sys, json, time, statistics
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    t_prime = 0.0
    if sys.argv[3] == "1":
        t = time.perf_counter()
        import cacheprime
        cacheprime.touch(np.zeros(16))
        t_prime = time.perf_counter() - t
    t0 = time.perf_counter()
    import cachebench as m
    t_import = time.perf_counter() - t0
    n = int(sys.argv[2])
    side = max(16, int(n ** 0.5))
    a, b, c = np.zeros(n), np.arange(n, dtype=np.float64), np.ones(n)
    u, v = np.random.default_rng(1).random((side, side)), np.zeros((side, side))
    calls = {"triad": lambda: m.triad(a, b, c, 2.0), "total": lambda: m.total(b),
             "jacobi": lambda: m.jacobi(u, v)}
    first, steady = {}, {}
    for name, f in calls.items():
        t = time.perf_counter(); f(); first[name] = time.perf_counter() - t
    for name, f in calls.items():
        ts = []
        for _ in range(5):
            t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
        steady[name] = statistics.median(ts)
    info = {}
    try:
        import cyocl
        if hasattr(cyocl, "cache_info"):
            info = {k: v for k, v in dict(cyocl.cache_info()).items()
                    if isinstance(v, (int, float, str))}
    except Exception:
        pass
    print(json.dumps({"import": t_import, "prime": t_prime, "first": first, "steady": steady, "info": info}))
""")


PRIME = True


def child(work, n, env, trace):
    env = dict(env, CYOCL_TRACE=trace)
    if os.path.exists(trace):
        os.remove(trace)
    p = subprocess.run([sys.executable, "-c", CHILD, work, str(n), "1" if PRIME else "0"], env=env,
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit("benchmark process failed (exit %d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
    res = json.loads(p.stdout.strip().splitlines()[-1])
    builds, device = [], None
    if os.path.exists(trace):
        with open(trace) as f:
            for line in f:
                r = json.loads(line)
                if r.get("impl") == "opencl" and r.get("module") == "cachebench":
                    device = device or r.get("device")
                    if r.get("build") not in (None, "none"):
                        builds.append(r.get("build"))
    res["builds"], res["device"] = builds, device
    return res


def ms(x):
    return "%.1f" % (1e3 * x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--device", help="CYOCL_DEVICE for the runs (index or name substring)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--n", type=int, default=1000000, help="elements of the 1-D arrays")
    ap.add_argument("--work", help="keep the build and caches here")
    ap.add_argument("--no-driver-cache", action="store_true",
                    help="turn the drivers' own caches off (POCL_KERNEL_CACHE=0, "
                         "CUDA_CACHE_DISABLE=1) instead of giving each case its own: shows what "
                         "cyocl's cache does alone (NVIDIA then JIT-compiles PTX at every load)")
    ap.add_argument("--no-prime", action="store_true",
                    help="time the module's first calls in a process where OpenCL is not up yet "
                         "(by default another module runs first, so that the figures leave out "
                         "the per-process platform and context set-up)")
    a = ap.parse_args()
    global PRIME
    PRIME = not a.no_prime

    work = a.work or tempfile.mkdtemp(prefix="cyocl-cachebench-")
    os.makedirs(work, exist_ok=True)
    pyx = os.path.join(work, "cachebench.pyx")
    with open(pyx, "w") as f:
        f.write(PYX)
    prime = os.path.join(work, "cacheprime.pyx")
    with open(prime, "w") as f:
        f.write(PRIME_PYX)
    for src in (pyx, prime):
        p = subprocess.run([a.cyocl, "build", "-o", work, src], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("cyocl build failed:\n" + p.stdout + p.stderr)

    base = dict(os.environ, CYOCL_FORCE="opencl")
    for k in ("CYOCL_CACHE", "CYOCL_CACHE_DIR", "CYOCL_TRACE", "CYOCL_CACHE_MAX_SIZE"):
        base.pop(k, None)
    if a.no_driver_cache:
        base.update(POCL_KERNEL_CACHE="0", CUDA_CACHE_DISABLE="1")
    else:
        for k in ("POCL_KERNEL_CACHE", "CUDA_CACHE_DISABLE"):
            base.pop(k, None)

    def caches(d, **kw):
        """cyocl's cache and the drivers' (PoCL's kernel cache, NVIDIA's
        ComputeCache) under d: cold means all of them empty, warm all filled"""
        e = dict(base, CYOCL_CACHE_DIR=os.path.join(d, "cyocl"), **kw)
        if not a.no_driver_cache:
            e.update(POCL_CACHE_DIR=os.path.join(d, "pocl"), CUDA_CACHE_PATH=os.path.join(d, "nv"))
        return e
    if a.device is not None:
        base["CYOCL_DEVICE"] = a.device
    trace = os.path.join(work, "trace.jsonl")

    runs = {"cold": [], "warm": [], "off": []}
    warm_dir = os.path.join(work, "warm-cache")
    shutil.rmtree(warm_dir, ignore_errors=True)
    child(work, a.n, caches(warm_dir), trace)  # fills the warm caches
    problems = []
    for rep in range(a.reps):
        # interleaved, so that drift affects every case alike
        cold_dir = os.path.join(work, "cold-%d" % rep)
        shutil.rmtree(cold_dir, ignore_errors=True)
        r = child(work, a.n, caches(cold_dir), trace)
        if any(b != "compiled" for b in r["builds"]):
            problems.append("cold run %d: build fields %r" % (rep, r["builds"]))
        runs["cold"].append(r)
        shutil.rmtree(cold_dir, ignore_errors=True)
        r = child(work, a.n, caches(warm_dir), trace)
        if not r["builds"] or any(b != "cache" for b in r["builds"]):
            problems.append("warm run %d: build fields %r" % (rep, r["builds"]))
        runs["warm"].append(r)
        off_dir = os.path.join(work, "off-%d" % rep)
        shutil.rmtree(off_dir, ignore_errors=True)
        runs["off"].append(child(work, a.n, caches(off_dir, CYOCL_CACHE="0"), trace))
        shutil.rmtree(off_dir, ignore_errors=True)

    device = next((r["device"] for rs in runs.values() for r in rs if r["device"]), "?")
    names = ["triad", "total", "jacobi"]
    print("device: %s; n = %d; median of %d processes; times in ms; %s" % (
        device, a.n, a.reps, "OpenCL brought up by another module first (prime)" if PRIME
        else "OpenCL set-up included in the first call"))
    print()
    print("| cache | import | " + " | ".join("first %s" % n for n in names) +
          " | first, all three | " + " | ".join("steady %s" % n for n in names) + " |")
    print("|---" * (3 + 2 * len(names)) + "|")
    for case in ("cold", "warm", "off"):
        rs = runs[case]
        med = lambda f: statistics.median(f(r) for r in rs)
        row = [case, ms(med(lambda r: r["import"]))]
        row += [ms(med(lambda r, n=n: r["first"][n])) for n in names]
        row.append(ms(med(lambda r: sum(r["first"].values()))))
        row += [ms(med(lambda r, n=n: r["steady"][n])) for n in names]
        print("| " + " | ".join(row) + " |")
    print()
    print("first call minus steady state (the cost of the first encounter), ms:")
    print("| cache | " + " | ".join(names) + " | largest |")
    print("|---" * (2 + len(names)) + "|")
    for case in ("cold", "warm", "off"):
        ex = [statistics.median(r["first"][n] - r["steady"][n] for r in runs[case]) for n in names]
        print("| " + " | ".join([case] + [ms(x) for x in ex] + [ms(max(ex))]) + " |")
    if PRIME:
        print()
        print("OpenCL set-up in the priming module (per process, not the cache's): %s ms" %
              ms(statistics.median(r["prime"] for rs in runs.values() for r in rs)))
    cold = statistics.median(sum(r["first"].values()) for r in runs["cold"])
    warm = statistics.median(sum(r["first"].values()) for r in runs["warm"])
    print()
    print("first calls, cold / warm: %.1fx" % (cold / warm if warm else float("nan")))
    info = runs["warm"][-1].get("info")
    if info:
        print("cyocl.cache_info() after a warm run: %s" % json.dumps(info))
    if problems:
        print()
        print("WARNING: the cache did not do what the case needs:")
        for p in problems:
            print("  " + p)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
