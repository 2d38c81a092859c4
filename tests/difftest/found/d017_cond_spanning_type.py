# driver of d017_cond_spanning_type.pyx: run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
import numpy as np
mod = __import__(sys.argv[1] if len(sys.argv) > 1 else "d017_cond_spanning_type")
for args in [(1, -3, -2, 3, False), (1, -3, -2, 3, True), (2**64 - 1, 5, 7, 65535, True)]:
    print("return", repr(mod.f(*args)))
print("return", mod.g(np.array([0, 1, 2, 0, 5], dtype=np.uint), np.array([-3, -5, 4, 0, -1], dtype=np.intp)))
