"""Imports the modules the consumer project built and checks them against numpy."""
import os
import sys

import numpy as np

import plainmod
import tri

rng = np.random.default_rng(7)
a, b = rng.random(10_001), rng.random(10_001)
out = np.empty_like(a)
tri.triad(a, b, 0.5, out)
assert np.array_equal(out, a + 0.5 * b)
t = tri.total(a)
assert abs(t - a.sum()) <= 1e-9 * abs(t), (t, a.sum())
sq = np.empty(1000, dtype=np.int64)
plainmod.squares(sq)
assert np.array_equal(sq, np.arange(1000) ** 2)
import cyocl

print(f"consumer modules OK: {os.path.basename(tri.__file__)}, {os.path.basename(plainmod.__file__)}; "
      f"runtime {cyocl.__file__}; {sys.executable}")
