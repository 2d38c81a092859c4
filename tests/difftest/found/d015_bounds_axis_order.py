# driver of d015_bounds_axis_order.pyx: run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
import numpy as np
mod = __import__(sys.argv[1] if len(sys.argv) > 1 else "d015_bounds_axis_order")
a = np.arange(24.0).reshape(2, 3, 4)
out = np.zeros(2, dtype=np.int_)
for fn, args in [(mod.f, (a, 5, 5, 5)), (mod.f, (a, 0, 5, 5)), (mod.f, (a, 5, 0, 9)), (mod.f, (a, 5, 7, 0)),
                 (mod.f, (a, -9, 0, 0)), (mod.f, (a, 1, -1, -4)), (mod.g, (a, out, 5, 9)), (mod.g, (a, out, 5, 0)),
                 (mod.g, (a, out, 1, 3)), (mod.h, (a[0], 9, 1, 0)), (mod.h, (a[0], 9, 9, 1))]:
    try:
        print("return", repr(fn(*args)), out.tolist())
    except Exception as e:
        print("raised", type(e).__name__, e)
