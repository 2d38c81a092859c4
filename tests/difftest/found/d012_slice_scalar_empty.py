# driver of d012_slice_scalar_empty.pyx (tests/difftest): run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from inputs import make_inputs
import numpy as np
np.set_printoptions(threshold=60)
mod = __import__("d012_slice_scalar_empty".split(".")[0]) if False else __import__(sys.argv[1] if len(sys.argv) > 1 else "d012_slice_scalar_empty")
spec = {'bases': [('ulonglong', (9, 3, 2), 'C', ('int', 0, 8), 129852746), ('ulonglong', (10, 3, 3), 'C', ('int', 0, 8), 403387000), ('ulonglong', (6, 3, 2), 'C', ('int', 0, 3), 915918826)], 'args': [('arr', 0, ((0, 9, 2), (1, 3, 1), (1, 2, 2))), ('arr', 1, ((1, 10, 2), (1, 3, 1), (2, 1, -1))), ('arr', 2, ((1, 6, 1), (2, 0, -1), (1, 0, -2))), ('scalar', 6), ('scalar', 0.0)]}
args, bases = make_inputs(spec)
try:
    print("return", repr(mod.f(*args)))
except Exception as e:
    print("raised", type(e).__name__, e)
for k, b in enumerate(bases):
    print("base", k, b.ravel().tolist() if b.size <= 60 else b)
