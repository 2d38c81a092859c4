#!/usr/bin/env python3
"""cyocl cache warm MODULE_OR_DIR: the kernels of built modules go into the
cache, so that their first OpenCL launch loads instead of compiling.

  cache_warm.py --cyocl build/cyocl --work DIR     (needs an OpenCL device: PoCL)

A module built by `cyocl build` is warmed by directory, by file and by
module name (through the target Python); `cache stats` then counts its
entry; a second warm finds it cached; a fresh process running the module on
OpenCL gets a cache hit and compiles nothing.  Refusals: a missing path
(exit 2), a directory without cyocl modules (exit 1), the cache off (exit 2)."""
import argparse
import json
import os
import shutil
import subprocess
import sys

from common import SKIP, fail, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    cy = os.path.abspath(a.cyocl)
    if subprocess.run([cy, "devices"], stdout=subprocess.DEVNULL).returncode != 0:
        print("SKIP: no usable OpenCL device (cyocl devices)")
        sys.exit(SKIP)
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cache = os.path.join(work, "cache")
    os.makedirs(cache, mode=0o700)
    env = dict(os.environ, CYOCL_CACHE_DIR=cache, CYOCL_PYTHON=sys.executable)
    env.pop("CYOCL_CACHE", None)
    mods = os.path.join(work, "mods")
    run([cy, "build", "-o", mods, os.path.join(ROOT, "examples", "heat.pyx")], env=env)
    run([cy, "build", "--no-opencl", "-o", os.path.join(mods, "sub"),
         os.path.join(ROOT, "tests", "packaging", "consumer", "plainmod.pyx")], env=env)

    def stats():
        r = run([cy, "cache", "stats"], env=env, capture=True)
        return int([l for l in r.stdout.splitlines() if l.startswith("entries:")][0].split()[1])

    if stats() != 0:
        fail("the new cache is not empty")
    r = run([cy, "cache", "warm", mods], env=env, capture=True)
    if "built for" not in r.stdout or "1 built and stored" not in r.stdout:
        fail("warm by directory built nothing")
    n = stats()
    if n < 1:
        fail("cache stats shows no entry after cache warm")
    so = [f for f in os.listdir(mods) if f.startswith("heat.")][0]
    r = run([cy, "cache", "warm", os.path.join(mods, so)], env=env, capture=True)
    if "already in the cache" not in r.stdout or "0 built" not in r.stdout:
        fail("a second warm (by file) built again")
    r = run([cy, "cache", "warm", "heat"], env=dict(env, PYTHONPATH=mods), capture=True)
    if "already in the cache" not in r.stdout:
        fail("warm by module name did not find heat")
    if stats() != n:
        fail("entries changed without a build")

    # a fresh process: its first launch loads the program from the cache
    code = ("import json, numpy as np, cyocl, heat\n"
            "u = np.zeros((64, 64)); u[0, :] = 1.0\n"
            "heat.solve(u, 0.2, 3)\n"
            "c = cyocl.cache_info(); s = cyocl.stats()\n"
            "print(json.dumps({'hits': c['hits'], 'misses': c['misses'], 'launches': s['launches'],"
            " 'fallbacks': s['fallbacks']}))\n")
    r = run([sys.executable, "-c", code], env=dict(env, CYOCL_FORCE="opencl"), cwd=mods, capture=True)
    info = json.loads(r.stdout.strip().splitlines()[-1])
    if info["launches"] < 1 or info["fallbacks"] or info["hits"] < 1 or info["misses"]:
        fail(f"the module did not load its kernels from the warmed cache: {info}")

    # refusals
    r = run([cy, "cache", "warm", os.path.join(work, "nothing-here")], env=env, capture=True, check=False)
    if r.returncode != 2 or "cannot read" not in r.stdout:
        fail("a missing path was not refused with exit 2")
    r = run([cy, "cache", "warm", os.path.join(mods, "sub")], env=env, capture=True, check=False)
    if r.returncode != 1 or "no cyocl module with OpenCL kernels" not in r.stdout:
        fail("a directory without OpenCL modules did not exit 1")
    r = run([cy, "cache", "warm", mods], env=dict(env, CYOCL_CACHE="0"), capture=True, check=False)
    if r.returncode != 2 or "is off" not in r.stdout:
        fail("warming with the cache off did not exit 2")
    r = run([cy, "cache", "warm"], env=env, capture=True, check=False)
    if r.returncode != 2:
        fail("cache warm without a target did not exit 2")
    print("cache warm: OK")


if __name__ == "__main__":
    main()
