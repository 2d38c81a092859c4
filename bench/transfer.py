#!/usr/bin/env python3
"""A 256 MiB f64 argument moved to the device and back through cyocl
(issue 16: "a 256 MiB argument moved at >= 40 GB/s"), beside clref's pinned
and pageable copies and the host's own copy speed.

    CYOCL_DEVICE=NVIDIA python3 bench/transfer.py [--cyocl build/cyocl] [--mib 256]
        [--rounds 3] [--repeats 5] [--json FILE] [--work DIR] [--no-clref] [--cupy]

Per round, two fresh processes (CYOCL_FORCE=opencl; CYOCL_DEVICE picks the
device), one per cache state, each holding one touched array inside
cyocl.resident and repeating:

  up      touch(a) (a[i] += 1 on the device: the upload, then the kernel)
          minus a second touch(a) with the data already there (the kernel
          alone), each followed by cyocl.finish()
  back    cyocl.to_host(a), into the array's own pages
  fresh   cyocl.to_host(out) for an out = np.empty(n) that only the device
          wrote (fill(out)): the first touch of the user's pages is in it

"warm" leaves the array in the host's cache; "cold" reads 640 MiB elsewhere
before each copy (the H100's host has 300 MiB of L3), so that the array's
bytes come from memory.  The first up and back of a process (which also
make the staging buffers and the device's allocation) are reported apart.
cyocl.stats() confirms that every step moved exactly the array's bytes.
numpy's copy of the same bytes (into a touched and into a fresh array) is
the host's own copy speed, which bounds a copy staged through pinned
buffers.  clref (../shared/reference/clref.c, or $CYOCL_SHARED/reference) is
built and run when it can be (REF_PLATFORM, default NVIDIA).  --cupy: the
same array through cupy.asarray (up) and ndarray.get(out=a) (back, into the
array's pages) and cupy.asnumpy (back into fresh pages), warm and cold, in a
process of its own per round (CuPy's own copies: its default, pageable).
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("CYOCL_SHARED") or os.path.abspath(os.path.join(ROOT, "..", "shared"))

PYX = textwrap.dedent("""
    # cython: boundscheck=False, wraparound=False
    from cython.parallel import prange

    def touch(double[::1] a):
        cdef Py_ssize_t i
        for i in prange(a.shape[0], nogil=True):
            a[i] = a[i] + 1.0

    def fill(double[::1] a):
        cdef Py_ssize_t i
        for i in prange(a.shape[0], nogil=True):
            a[i] = 2.0
""")

CHILD = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import numpy as np, cyocl, xfer
    n, repeats, cold = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "cold"
    nbytes = 8 * n
    res = {"up": [], "back": [], "fresh": [], "np_copy": [], "np_fresh": [], "kernel": []}
    # cold: the host's caches (300 MiB of L3 on the H100's host) are
    # flushed before each copy by reading 640 MiB elsewhere, so that the
    # array's bytes come from (and go to) memory, not the cache
    scratch = np.ones(80 << 20) if cold else None
    def evict():
        if cold:
            scratch.sum()
    def moved(before, key, count):
        got = cyocl.stats()[key] - before[key]
        assert got == nbytes * count, (key, got, nbytes * count)
    def timed(f):
        cyocl.finish()
        t0 = time.perf_counter(); f(); cyocl.finish()
        return time.perf_counter() - t0
    # the program is built (or loaded) on small arrays first, which are not
    # staged: the first 256 MiB copy makes the staging buffers and the
    # device's allocation, not the kernels
    w = np.zeros(16); xfer.touch(w); xfer.fill(w); cyocl.finish()
    a = np.full(n, 0.0)  # touched: the first back is not a first touch
    with cyocl.resident(a):
        for k in range(repeats + 1):
            s = cyocl.stats()
            evict()
            t_up = timed(lambda: xfer.touch(a))
            moved(s, "bytes_to_device", 1)
            t_kernel = timed(lambda: xfer.touch(a))
            moved(s, "bytes_to_device", 1)
            evict()
            t_back = timed(lambda: cyocl.to_host(a))
            moved(s, "bytes_to_host", 1)
            if k == 0:
                res["first_up"], res["first_back"] = t_up - t_kernel, t_back
            else:
                res["up"].append(t_up - t_kernel)
                res["back"].append(t_back)
            res["kernel"].append(t_kernel)
    assert a[0] == 2.0 * (repeats + 1), a[0]
    for k in range(repeats):
        out = np.empty(n)
        with cyocl.resident(out):
            xfer.fill(out)
            s = cyocl.stats()
            res["fresh"].append(timed(lambda: cyocl.to_host(out)))
            moved(s, "bytes_to_host", 1)
        assert out[-1] == 2.0
        del out
    for k in range(repeats):
        dst = np.empty(n); dst[:] = 0.0
        evict()
        t0 = time.perf_counter(); np.copyto(dst, a); res["np_copy"].append(time.perf_counter() - t0)
        dst = np.empty(n)
        t0 = time.perf_counter(); np.copyto(dst, a); res["np_fresh"].append(time.perf_counter() - t0)
    res["device"] = [d["name"] for d in cyocl.devices() if d["type"] != "cpu"][:1] or \\
        [d["name"] for d in cyocl.devices()][:1]
    print(json.dumps(res))
""")

CUPY_CHILD = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    try:
        import cupy as cp
        sync = cp.cuda.Device().synchronize
        sync()
    except Exception as e:  # noqa: BLE001 (not installed, or no GPU)
        print(json.dumps({"unavailable": "%s: %s" % (type(e).__name__, e)}))
        sys.exit(0)
    n, repeats = int(sys.argv[1]), int(sys.argv[2])
    scratch = np.ones(80 << 20)
    a = np.full(n, 1.0)
    res = {"warm": {"up": [], "back": []}, "cold": {"up": [], "back": []}, "fresh": []}
    cp.asarray(np.zeros(16)); sync()
    t0 = time.perf_counter(); g = cp.asarray(a); sync(); res["first_up"] = time.perf_counter() - t0
    for mode in ("warm", "cold"):
        for k in range(repeats):
            g = None   # its memory goes back to CuPy's pool, for the next asarray
            if mode == "cold":
                scratch.sum()
            t0 = time.perf_counter(); g = cp.asarray(a); sync(); res[mode]["up"].append(time.perf_counter() - t0)
            if mode == "cold":
                scratch.sum()
            t0 = time.perf_counter(); g.get(out=a); sync(); res[mode]["back"].append(time.perf_counter() - t0)
    for k in range(repeats):
        t0 = time.perf_counter(); h = cp.asnumpy(g); res["fresh"].append(time.perf_counter() - t0)
        assert h[-1] == 1.0
        del h
    assert a[0] == 1.0 and a[-1] == 1.0
    res["device"] = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    res["cupy"] = cp.__version__
    print(json.dumps(res))
""")


def gbps(nbytes, secs):
    return nbytes / secs / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-clref", action="store_true")
    ap.add_argument("--cupy", action="store_true", help="CuPy's copies of the same array, beside")
    ap.add_argument("--json", help="also write every sample here")
    ap.add_argument("--work", help="build the module here (kept; reused when already built)")
    a = ap.parse_args()
    n = a.mib * (1 << 20) // 8
    nbytes = 8 * n
    work = a.work or tempfile.mkdtemp(prefix="cyocl-transfer-")
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "xfer.pyx")
    env = dict(os.environ, CYOCL_PYTHON=sys.executable, CYOCL_CACHE_DIR=os.path.join(work, "cache"))
    if not any(f.startswith("xfer") and f.endswith(".so") for f in os.listdir(work)):
        with open(src, "w") as f:
            f.write(PYX)
        subprocess.run([a.cyocl, "build", "-o", work, src], check=True, env=env, capture_output=True)
    runs = {"warm": [], "cold": []}
    for _ in range(a.rounds):
        for mode in runs:
            p = subprocess.run([sys.executable, "-c", CHILD, work, str(n), str(a.repeats), mode],
                               env=dict(env, CYOCL_FORCE="opencl"), capture_output=True, text=True)
            if p.returncode:
                raise SystemExit("transfer: child failed:\n%s" % p.stderr[-3000:])
            runs[mode].append(json.loads(p.stdout.strip().splitlines()[-1]))
    staging = os.environ.get("CYOCL_STAGING", "default")
    dev = runs["warm"][0]["device"]
    print("%d MiB f64 on %s, CYOCL_STAGING=%s: GB/s, %d fresh processes x %d repeats for each cache state"
          % (a.mib, dev[0] if dev else "?", staging, a.rounds, a.repeats))
    print("  %-40s %7s %7s %7s" % ("", "median", "min", "max"))

    def row(label, vals):
        v = [gbps(nbytes, t) for t in vals]
        print("  %-40s %7.1f %7.1f %7.1f" % (label, statistics.median(v), min(v), max(v)))
    for mode, what in (("warm", "array in the host's cache"), ("cold", "host's cache flushed")):
        row("up, %s" % what, [t for r in runs[mode] for t in r["up"]])
        row("back, %s" % what, [t for r in runs[mode] for t in r["back"]])
    every = runs["warm"] + runs["cold"]
    row("back into a fresh np.empty", [t for r in every for t in r["fresh"]])
    row("first up of a process", [r["first_up"] for r in every])
    row("first back of a process", [r["first_back"] for r in every])
    row("numpy copyto, touched dst (cold)", [t for r in runs["cold"] for t in r["np_copy"]])
    row("numpy copyto, fresh dst", [t for r in every for t in r["np_fresh"]])
    kms = [t * 1e3 for r in every for t in r["kernel"]]
    print("  (the kernel alone, subtracted from up: median %.2f ms)" % statistics.median(kms))
    cupy = []
    if a.cupy:
        for _ in range(a.rounds):
            p = subprocess.run([sys.executable, "-c", CUPY_CHILD, str(n), str(a.repeats)],
                               capture_output=True, text=True)
            if p.returncode:
                raise SystemExit("transfer: CuPy's child failed:\n%s" % p.stderr[-3000:])
            cupy.append(json.loads(p.stdout.strip().splitlines()[-1]))
        if "unavailable" in cupy[0]:
            print("  cupy: %s" % cupy[0]["unavailable"])
        else:
            print("  cupy %s:" % cupy[0]["cupy"])
            for mode in ("warm", "cold"):
                row("cupy asarray, %s" % mode, [t for r in cupy for t in r[mode]["up"]])
                row("cupy get(out=a), %s" % mode, [t for r in cupy for t in r[mode]["back"]])
            row("cupy asnumpy (fresh pages)", [t for r in cupy for t in r["fresh"]])
            row("cupy first asarray of a process", [r["first_up"] for r in cupy])
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"mib": a.mib, "staging": staging, "runs": runs, "cupy": cupy}, f)
    clref = os.path.join(SHARED, "reference", "clref.c")
    exe = os.path.join(work, "clref")
    if a.no_clref:
        return
    if os.path.exists(clref) and subprocess.run(["cc", "-O2", "-o", exe, clref, "-lOpenCL", "-lm"],
                                                capture_output=True).returncode == 0:
        want = os.environ.get("REF_PLATFORM") or "NVIDIA"
        p = subprocess.run([exe], capture_output=True, text=True,
                           env=dict(os.environ, REF_PLATFORM=want))
        got = {l.split(":")[0]: l.split(":", 1)[1].strip() for l in p.stdout.splitlines() if "GBps" in l}
        print("  clref (%s): pinned up %s, back %s; pageable up %s, back %s GB/s" % (
            want, got.get("h2d_pinned_GBps", "?"), got.get("d2h_pinned_GBps", "?"),
            got.get("h2d_pageable_GBps", "?"), got.get("d2h_pageable_GBps", "?")))
    else:
        print("  clref   not built (no %s or no OpenCL headers)" % clref)


if __name__ == "__main__":
    main()
