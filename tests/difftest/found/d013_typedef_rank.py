# driver of d013_typedef_rank.pyx: run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
import numpy as np
mod = __import__(sys.argv[1] if len(sys.argv) > 1 else "d013_typedef_rank")
a = np.array([2**64 - 1, 2**64 - 5], dtype=np.uint64)
b = a.copy()
c = np.array([-7], dtype=np.int64)
try:
    print("return", repr(mod.f(a, b, c, 3)))
except Exception as e:
    print("raised", type(e).__name__, e)
print(a.tolist(), b.tolist(), c.tolist())
