#!/usr/bin/env python3
"""find_package(cyocl) + cyocl_add_module in a user's CMake project, against
`cmake --install` of this build into a fresh prefix:

  cmake_consumer.py --build BUILD_DIR --work DIR

Installs BUILD_DIR into DIR/prefix, configures and builds
tests/packaging/consumer with CMAKE_PREFIX_PATH=DIR/prefix, and imports its
modules (the runtime from the prefix's Python directory) checking them
against numpy.  Also: `python -m cyocl --cmake-dir` names the installed
configuration, and the prefix's `cyocl build`, run for a Python that does not
see the prefix, copies the prefix's runtime beside the module."""
import argparse
import glob
import os
import shutil
import sys

from common import clean_env, fail, run

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    prefix = os.path.join(work, "prefix")
    run(["cmake", "--install", a.build, "--prefix", prefix], capture=True)
    pkgs = glob.glob(os.path.join(prefix, "**", "cyocl", "__init__.py"), recursive=True)
    if len(pkgs) != 1:
        fail(f"the installed package: {pkgs}")
    pydir = os.path.dirname(os.path.dirname(pkgs[0]))
    for f in ("bin/cyocl", "lib/cmake/cyocl/cyoclConfig.cmake", "lib/cmake/cyocl/cyoclConfigVersion.cmake"):
        if not os.path.exists(os.path.join(prefix, f)):
            fail(f"{f} is not installed")
    env = clean_env(PYTHONPATH=pydir)
    r = run([a.python, "-m", "cyocl", "--cmake-dir"], env=env, capture=True)
    if os.path.realpath(r.stdout.strip()) != os.path.realpath(os.path.join(prefix, "lib/cmake/cyocl")):
        fail(f"python -m cyocl --cmake-dir: {r.stdout!r}")

    # the user's project
    bdir = os.path.join(work, "consumer")
    run(["cmake", "-S", os.path.join(HERE, "consumer"), "-B", bdir, "-G", "Ninja",
         f"-DCMAKE_PREFIX_PATH={prefix}", f"-DPython_EXECUTABLE={a.python}"], env=clean_env(), capture=True)
    run(["cmake", "--build", bdir], env=clean_env(), capture=True)
    mods = sorted(os.path.basename(p) for p in glob.glob(os.path.join(bdir, "*.so")))
    print("built:", mods)
    if len(mods) != 2:
        fail(f"two modules expected in {bdir}: {mods}")
    env = clean_env(PYTHONPATH=os.pathsep.join([bdir, pydir]))
    r = run([a.python, os.path.join(HERE, "consumer", "check.py")], env=env, capture=True)
    if pydir not in r.stdout:
        fail("the runtime did not come from the prefix")
    # a bad call is refused at configure time with a clear message
    bad = os.path.join(work, "bad")
    os.makedirs(bad)
    with open(os.path.join(bad, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES C)\nfind_package(cyocl REQUIRED)\n"
                f"cyocl_add_module(other \"{HERE}/consumer/tri.pyx\")\n")
    r = run(["cmake", "-S", bad, "-B", os.path.join(bad, "b"), f"-DCMAKE_PREFIX_PATH={prefix}",
             f"-DPython_EXECUTABLE={a.python}"], env=clean_env(), capture=True, check=False)
    if r.returncode == 0 or "the module is named after its file" not in " ".join(r.stdout.split()):
        fail("cyocl_add_module with a name that is not the file's was not refused")

    # the prefix's cyocl build for a Python that does not see the prefix:
    # the runtime is copied beside the module
    out = os.path.join(work, "beside")
    run([os.path.join(prefix, "bin", "cyocl"), "build", "-o", out, os.path.join(HERE, "consumer", "tri.pyx")],
        env=clean_env(CYOCL_PYTHON=a.python), capture=True)
    if not glob.glob(os.path.join(out, "cyocl.*.so")):
        fail(f"no runtime module beside the module in {out}: {os.listdir(out)}")
    run([a.python, "-c", "import tri, cyocl, numpy as np; a = np.ones(5); print(tri.total(a), cyocl.__file__)"],
        env=clean_env(), cwd=out, capture=True)
    print("cmake consumer: OK")


if __name__ == "__main__":
    main()
