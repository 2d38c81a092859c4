# driver of d007_num_threads_one.pyx (tests/difftest): run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from inputs import make_inputs
import numpy as np
np.set_printoptions(threshold=60)
mod = __import__("d007_num_threads_one".split(".")[0]) if False else __import__(sys.argv[1] if len(sys.argv) > 1 else "d007_num_threads_one")
spec = {'bases': [('ubyte', (26,), 'C', ('int', 0, 100), 965678784), ('uint32', (13,), 'C', ('int', 0, 3), 942477737)], 'args': [('arr', 0, ((25, 0, -2),)), ('arr', 1, ((0, 13, 1),))]}
args, bases = make_inputs(spec)
try:
    print("return", repr(mod.f(*args)))
except Exception as e:
    print("raised", type(e).__name__, e)
for k, b in enumerate(bases):
    print("base", k, b.ravel().tolist() if b.size <= 60 else b)
