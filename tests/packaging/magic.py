#!/usr/bin/env python3
"""%load_ext cyocl and the %%cyocl cell magic, through IPython's API:

  magic.py --work DIR      (PYTHONPATH: the build tree's python/, with the cyocl package)

A cell is compiled, imported, and its names land in the user namespace; the
same cell again is not rebuilt; flags reach `cyocl build` (--no-opencl: no
runtime copied, -O, -f rebuilds); a cell with an error prints cyocl's
diagnostic (naming <cell>) and defines nothing; -o is refused."""
import argparse
import contextlib
import glob
import io
import os
import shutil
import sys

from common import SKIP, fail

CELL = '''
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

def add_scaled(double[::1] a, double[::1] b, double s, double[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] + s * b[i]

def norm1(double[::1] a):
    cdef Py_ssize_t i
    cdef double t = 0.0
    for i in prange(a.shape[0], nogil=True):
        t += a[i] if a[i] > 0 else -a[i]
    return t

cdef double _hidden(double x):
    return x
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    try:
        from IPython.core.interactiveshell import InteractiveShell
    except ImportError:
        print("SKIP: IPython is not installed (./dev setup installs it)")
        sys.exit(SKIP)
    import numpy as np

    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ["CYOCL_MAGIC_DIR"] = work
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "cyocl")

    def cell(line, text):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            ip.run_cell_magic("cyocl", line, text)
        return out.getvalue() + err.getvalue()

    log = cell("", CELL)
    print(log, end="")
    ns = ip.user_ns
    for n in ("add_scaled", "norm1"):
        if n not in ns:
            fail(f"{n} is not in the namespace after %%cyocl")
    if "_hidden" in ns:
        fail("a private name was pushed")
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(5001), rng.standard_normal(5001)
    out = np.empty_like(x)
    ns["add_scaled"](x, y, 0.25, out)
    if not np.array_equal(out, x + 0.25 * y):
        fail("add_scaled differs from numpy")
    v = ns["norm1"](x)
    if abs(v - np.abs(x).sum()) > 1e-9 * v:
        fail(f"norm1 {v} != {np.abs(x).sum()}")
    # the same cell through the shell's own cell syntax: no rebuild
    mods = sorted(glob.glob(os.path.join(work, "_cyocl_magic_*.so")))
    stamp = [os.stat(m).st_mtime_ns for m in mods]
    r = ip.run_cell("%%cyocl\n" + CELL)
    if not r.success:
        fail(f"run_cell: {r.error_in_exec or r.error_before_exec}")
    if sorted(glob.glob(os.path.join(work, "_cyocl_magic_*.so"))) != mods or \
            [os.stat(m).st_mtime_ns for m in mods] != stamp:
        fail("the same cell was built again")
    rt = glob.glob(os.path.join(work, "cyocl.*.so"))
    print("built:", [os.path.basename(m) for m in mods], "runtime beside:", [os.path.basename(m) for m in rt])
    import cyocl

    if not cyocl.__file__.endswith("__init__.py"):
        fail(f"the runtime package is not the one imported: {cyocl.__file__}")

    # flags as on the command line
    log = cell("--no-opencl -O2 -v", "def twice(int n):\n    return 2 * n\n")
    if ns["twice"](21) != 42 or "-O2" not in log:
        fail(f"--no-opencl -O2 -v: {log}")
    log = cell("-f --no-opencl", "def twice(int n):\n    return 3 * n\n")
    if ns["twice"](2) != 6:
        fail("-f: the new definition is not the one in the namespace")

    # errors: cyocl's diagnostics, nothing defined, no exception
    log = cell("", "def broken(int n):\n    return n +\n")
    print(log, end="")
    if "<cell>:2" not in log or "error" not in log or "broken" in ns:
        fail(f"a cell with an error: {log!r}")
    log = cell("-o /tmp/x", "def f():\n    return 1\n")
    if "-o is chosen by the magic" not in log:
        fail(f"-o: {log!r}")
    log = cell("--bogus", "def g():\n    return 1\n")
    if "unknown option '--bogus'" not in log or "g" in ns:
        fail(f"--bogus: {log!r}")
    print("%%cyocl magic: OK")


if __name__ == "__main__":
    main()
