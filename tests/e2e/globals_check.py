"""Module-level reductions and lastprivates at 1, 3, 33 and 64 threads
(OMP_NUM_THREADS, each in a fresh process, and num_threads=), compared with
the exact values Cython 3.3 gives."""
import os, subprocess, sys

THREADS = (1, 3, 33, 64)

CHILD = r"""
import sys, io, contextlib
sys.path.insert(0, sys.argv[1])
out = io.StringIO()
with contextlib.redirect_stdout(out):
    mod = __import__(sys.argv[2])
printed = out.getvalue()
assert printed == "435\n", repr(printed)           # Cython's documentation example
assert mod.doc_sum() == 435 and mod.doc_index() == 29, (mod.doc_sum(), mod.doc_index())
for n in (0, 1, 1000, 100003):
    mod.reset(5)
    assert mod.add_range(n) == 5 + n * (n - 1) // 2, (n, mod.get())
    assert mod.add_range(n) == 5 + n * (n - 1), (n, mod.get())   # the global keeps its value
for nt in (1, 3, 33, 64):
    mod.reset(-2)
    assert mod.add_range_threads(50001, nt) == -2 + 3 * 50001 * 50000 // 2, (nt, mod.get())
mod.reset(0)
n = 64
s, prod, bits, last = mod.mixed(n)
assert s == n and prod == 1.5 ** 32 and bits == (1 << 60) - 1 and last == 3 * (n - 1), (s, prod, bits, last)
assert mod.get() == (0, 1.5 ** 32, (1 << 60) - 1, 3 * (n - 1), 1), mod.get()
mod.reset(0)
assert mod.mixed(0) == (0, 1.0, 0, -1)   # no iteration: the lastprivate keeps its value
print("ok")
"""


def check(mod):
    d = os.path.dirname(os.path.abspath(mod.__file__))
    name = mod.__name__
    for t in THREADS:
        env = dict(os.environ, OMP_NUM_THREADS=str(t))
        p = subprocess.run([sys.executable, "-c", CHILD, d, name], env=env, capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0 and p.stdout.strip().endswith("ok"), \
            "OMP_NUM_THREADS=%d: %s%s" % (t, p.stdout[-2000:], p.stderr[-2000:])
