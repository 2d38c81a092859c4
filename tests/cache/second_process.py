#!/usr/bin/env python3
"""The kernel cache end to end (DESIGN §7): a module with one OpenCL region
is built with `cyocl build` and run twice, each time in a fresh process,
under CYOCL_FORCE=opencl with an empty CYOCL_CACHE_DIR at first.

  - process 1 compiles the program: its trace line says "build": "compiled",
    and the cache then holds one entry;
  - process 2 loads it: every trace line says "build": "cache" (nothing is
    compiled), and the results are the same.

Exit 77 (skipped) when no OpenCL device is usable.

Usage: second_process.py [--cyocl PATH] [--work DIR]
"""
import argparse, glob, json, os, shutil, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PYX = textwrap.dedent("""
    # cython: boundscheck=False, wraparound=False
    from cython.parallel import prange

    def scale_add(double[:] x, double a, double b):
        cdef Py_ssize_t i
        for i in prange(x.shape[0], nogil=True):
            x[i] = a * x[i] + b
""")

DRIVER = textwrap.dedent("""
    import sys, json
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import cachemod
    x = np.arange(100000, dtype=np.float64)
    cachemod.scale_add(x, 2.0, 1.0)
    assert np.array_equal(x, 2.0 * np.arange(100000) + 1.0), "wrong result"
    info = {}
    try:
        import cyocl
        if hasattr(cyocl, "cache_info"):
            info = dict(cyocl.cache_info())
    except Exception as e:  # the runtime module may not offer it yet
        info = {"error": repr(e)}
    print(json.dumps(info, default=str))
""")


def run(cmd, env=None, timeout=300):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def read_trace(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--work")
    a = ap.parse_args()

    rc, out, err = run([a.cyocl, "devices"])
    if rc != 0:
        print("no usable OpenCL device: skipped\n" + out + err)
        return 77

    work = a.work or tempfile.mkdtemp(prefix="cyocl-cache-e2e-")
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    pyx = os.path.join(work, "cachemod.pyx")
    with open(pyx, "w") as f:
        f.write(PYX)
    rc, out, err = run([a.cyocl, "build", "-o", work, pyx])
    if rc != 0:
        print("FAIL cyocl build: exit %d\n%s%s" % (rc, out, err))
        return 1

    cache = os.path.join(work, "cache")
    failures = []

    def process(n):
        trace = os.path.join(work, "trace%d.jsonl" % n)
        env = dict(os.environ)
        for k in ("CYOCL_CACHE", "CYOCL_BUILD_OPTIONS", "CYOCL_CACHE_MAX_SIZE"):
            env.pop(k, None)
        env.update(CYOCL_FORCE="opencl", CYOCL_CACHE_DIR=cache, CYOCL_TRACE=trace)
        rc, out, err = run([sys.executable, "-c", DRIVER, work], env=env)
        if rc != 0:
            failures.append("process %d: exit %d\n%s%s" % (n, rc, out, err))
            return [], {}
        try:
            info = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            info = {}
        lines = read_trace(trace)
        ocl = [r for r in lines if r.get("impl") == "opencl"]
        if not ocl:
            failures.append("process %d: no region ran on OpenCL (trace: %r)" % (n, lines))
        print("process %d: builds %s, cache_info %s" % (n, [r.get("build") for r in lines], info))
        return ocl, info

    first, _ = process(1)
    if first and not any(r.get("build") == "compiled" for r in first):
        failures.append("process 1 compiled nothing: %r" % [r.get("build") for r in first])
    entries = glob.glob(os.path.join(cache, "*.clbin"))
    if len(entries) != 1:
        failures.append("the cache holds %d entries after process 1, want 1" % len(entries))

    second, info = process(2)
    builds = [r.get("build") for r in second]
    if second and any(b != "cache" for b in builds):
        failures.append("process 2: build fields %r, want all \"cache\"" % builds)
    if info.get("misses"):
        failures.append("process 2 compiled (cache_info %r)" % info)
    if len(glob.glob(os.path.join(cache, "*.clbin"))) != 1:
        failures.append("process 2 changed the number of entries")

    for f in failures:
        print("FAIL " + f)
    print("PASS" if not failures else "%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
