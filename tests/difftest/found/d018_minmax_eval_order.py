# driver of d018_minmax_eval_order.pyx: run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
import numpy as np
mod = __import__(sys.argv[1] if len(sys.argv) > 1 else "d018_minmax_eval_order")
a = np.arange(4.0)
b = np.arange(8.0).reshape(2, 4)
out = np.zeros(3)
for fn, args in [(mod.f, (a, b, 1, 2, 2.0)), (mod.f, (a, b, 9, 9, 2.0)), (mod.f, (a, b, 9, 1, 0.0)),
                 (mod.f, (a, b, 1, 1, 0.0)), (mod.g, (a, b, out, 0)), (mod.g, (a, b, out, 9))]:
    try:
        print("return", repr(fn(*args)), out.tolist())
    except Exception as e:
        print("raised", type(e).__name__, e)
