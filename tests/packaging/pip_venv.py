#!/usr/bin/env python3
"""pip install . / pip wheel . in fresh virtual environments:

  pip_venv.py --source REPO --work DIR

1. venv1 (fresh, no system site-packages): `pip install .` from the clone.
   The venv then has the cyocl command (venv1/bin), the `cyocl` package with
   the runtime, and cyoclConfig.cmake; with nothing else on the path (no
   PYTHONPATH, no build tree, cwd outside the clone) it builds
   examples/heat.pyx with `cyocl build` (no runtime copied beside it: the
   module imports the installed package) and runs the demo against numpy,
   and `pip install` builds examples/package (cyocl.setuptools) whose check
   compares with numpy, natively and on OpenCL.
2. `pip wheel .` (venv1) makes the wheel; venv2 installs it and repeats the
   example package, `cyocl cache warm` of the installed package by name, and
   a CMake project using find_package(cyocl) from venv2.

The builds run with --no-build-isolation after installing scikit-build-core
(and setuptools, wheel: setuptools before 70.1 needs it for bdist_wheel) from PyPI into each venv: an isolated build would create a
new environment and download the build requirements for every `pip`
command; here the two cyocl builds share one build directory (-C build-dir),
so `pip wheel` after `pip install` recompiles nothing.  PyPI (or a pip cache)
must be reachable for numpy and scikit-build-core: without it the test
exits 77 (skipped) saying so."""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

from common import SKIP, clean_env, fail, run

T0 = time.monotonic()


def venv(path):
    run([sys.executable, "-m", "venv", "--clear", path])
    py = os.path.join(path, "bin", "python")
    r = run([py, "-c", "import cyocl"], env=clean_env(), check=False, capture=True)
    if r.returncode == 0:
        fail(f"a fresh venv can already import cyocl: {r.stdout}")
    return py


def pip_install_deps(py, pkgs):
    r = run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check"] + pkgs,
            env=clean_env(), check=False, capture=True)
    if r.returncode != 0:
        print(f"SKIP: cannot install {' '.join(pkgs)} into a fresh virtual environment "
              "(no network and no pip cache?)")
        sys.exit(SKIP)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    src = os.path.abspath(a.source)
    work = os.path.abspath(a.work)
    for d in ("venv1", "venv2", "example1", "example2", "dist", "heat", "cmake", "cache"):
        shutil.rmtree(os.path.join(work, d), ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    skb = os.path.join(work, "skbuild")  # kept between runs: CMake rebuilds what changed

    # ---- 1. pip install . ---------------------------------------------------
    print("==> venv1: pip install .", flush=True)
    py1 = venv(os.path.join(work, "venv1"))
    bin1 = os.path.dirname(py1)
    pip_install_deps(py1, ["scikit-build-core>=0.10", "setuptools>=61", "wheel", "numpy"])
    env1 = clean_env(bin1)
    run([py1, "-m", "pip", "install", "--disable-pip-version-check", "--no-build-isolation",
         "-C", f"build-dir={skb}", src], env=env1, cwd=work, capture=True)
    r = run(["cyocl", "--version"], env=env1, cwd=work, capture=True)
    if shutil.which("cyocl", path=env1["PATH"]) != os.path.join(bin1, "cyocl"):
        fail("the cyocl on PATH is not the venv's")
    r = run([py1, "-c", "import cyocl, sys; print(cyocl.__file__, cyocl.__version__, sorted(cyocl.__all__))"],
            env=env1, cwd=work, capture=True)
    site = r.stdout.split()[0]
    if not site.startswith(os.path.join(work, "venv1")):
        fail(f"cyocl is not imported from venv1: {site}")
    if not os.path.exists(os.path.join(work, "venv1", "lib", "cmake", "cyocl", "cyoclConfig.cmake")):
        fail("cyoclConfig.cmake is not in venv1/lib/cmake/cyocl")

    # cyocl build + import with the installed command (the venv's python3 by default)
    heat = os.path.join(work, "heat")
    r = run(["cyocl", "build", "-v", "-o", heat, os.path.join(src, "examples", "heat.pyx")],
            env=env1, cwd=work, capture=True)
    if "the runtime is the installed package" not in r.stdout:
        fail("cyocl build did not use the installed runtime package")
    if glob.glob(os.path.join(heat, "cyocl*.so")):
        fail("a runtime module was copied beside the module although the package is installed")
    # not activated (venv1/bin not on PATH): the python3 beside the command is the target
    r = run([os.path.join(bin1, "cyocl"), "build", "-v", "-o", heat, os.path.join(src, "examples", "heat.pyx")],
            env=clean_env(), cwd=work, capture=True)
    if f"asking {os.path.join(bin1, 'python3')} for" not in r.stdout or \
            "the runtime is the installed package" not in r.stdout:
        fail("venv1/bin/cyocl run from outside the venv did not build for the venv's python3")
    run([py1, os.path.join(src, "examples", "run_demo.py"), "--quick", "--build-dir", heat],
        env=env1, cwd=work, capture=True)
    run([py1, "-c", "import heat, cyocl; print('heat:', heat.__file__, '| runtime:', cyocl.__file__)"],
        env=dict(env1, CYOCL_FORCE="opencl"), cwd=heat, capture=True)

    # the example package through cyocl.setuptools
    ex1 = os.path.join(work, "example1")
    shutil.copytree(os.path.join(src, "examples", "package"), ex1)
    run([py1, "-m", "pip", "install", "--disable-pip-version-check", "--no-build-isolation", ex1],
        env=env1, cwd=work, capture=True)
    run([py1, os.path.join(ex1, "tests", "check.py")], env=env1, cwd=work, capture=True)

    # ---- 2. pip wheel . -> venv2 ------------------------------------------------
    print("==> venv1: pip wheel .", flush=True)
    dist = os.path.join(work, "dist")
    run([py1, "-m", "pip", "wheel", "--disable-pip-version-check", "--no-build-isolation", "--no-deps",
         "-C", f"build-dir={skb}", "-w", dist, src], env=env1, cwd=work, capture=True)
    wheels = glob.glob(os.path.join(dist, "cyocl-*.whl"))
    if len(wheels) != 1:
        fail(f"one wheel expected: {wheels}")
    run([py1, "-m", "zipfile", "-l", wheels[0]], capture=True)
    print("==> venv2: pip install the wheel", flush=True)
    py2 = venv(os.path.join(work, "venv2"))
    bin2 = os.path.dirname(py2)
    pip_install_deps(py2, ["setuptools>=61", "wheel", "numpy"])
    env2 = clean_env(bin2)
    run([py2, "-m", "pip", "install", "--disable-pip-version-check", wheels[0]], env=env2, cwd=work,
        capture=True)
    ex2 = os.path.join(work, "example2")
    shutil.copytree(os.path.join(src, "examples", "package"), ex2)
    run([py2, "-m", "pip", "install", "--disable-pip-version-check", "--no-build-isolation", ex2],
        env=env2, cwd=work, capture=True)
    run([py2, os.path.join(ex2, "tests", "check.py")], env=env2, cwd=work, capture=True)
    r = run([py2, "-c", "import cyocl_example.kernels as k, cyocl; print(k.__file__); print(cyocl.__file__)"],
            env=env2, cwd=work, capture=True)
    if any(not p.startswith(os.path.join(work, "venv2")) for p in r.stdout.split()):
        fail("the example or the runtime is not venv2's")

    # cache warm of an installed package, by name
    if subprocess.run([os.path.join(bin2, "cyocl"), "devices"], env=env2, stdout=subprocess.DEVNULL).returncode == 0:
        cache = os.path.join(work, "cache")
        os.makedirs(cache, mode=0o700)
        envc = dict(env2, CYOCL_CACHE_DIR=cache)
        run(["cyocl", "cache", "warm", "cyocl_example"], env=envc, cwd=work, capture=True)
        r = run(["cyocl", "cache", "stats"], env=envc, cwd=work, capture=True)
        if "entries:   0" in r.stdout:
            fail("cache warm of the installed package stored nothing")
    else:
        print("no OpenCL device: cache warm of the installed package left out")

    # a CMake project against the installed configuration (venv2/bin on PATH)
    cm = os.path.join(work, "cmake")
    consumer = os.path.join(src, "tests", "packaging", "consumer")
    run(["cmake", "-S", consumer, "-B", cm, "-G", "Ninja", f"-DPython_EXECUTABLE={py2}"], env=env2, cwd=work,
        capture=True)
    run(["cmake", "--build", cm], env=env2, cwd=work, capture=True)
    r = run([py2, os.path.join(consumer, "check.py")], env=dict(env2, PYTHONPATH=cm), cwd=work, capture=True)
    if os.path.join(work, "venv2") not in r.stdout:
        fail("the consumer modules did not use venv2's runtime")
    print(f"pip install / pip wheel: OK in {time.monotonic() - T0:.0f} s")


if __name__ == "__main__":
    main()
