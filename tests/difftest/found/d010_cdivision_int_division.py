# driver of d010_cdivision_int_division.pyx (tests/difftest): run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from inputs import make_inputs
import numpy as np
np.set_printoptions(threshold=60)
mod = __import__("d010_cdivision_int_division".split(".")[0]) if False else __import__(sys.argv[1] if len(sys.argv) > 1 else "d010_cdivision_int_division")
spec = {'bases': [('int8', (17,), 'C', ('int', -8, 8), 584447279), ('int8', (10,), 'C', ('edge', -4, 4), 878536830)], 'args': [('arr', 0, ((2, 17, 2),)), ('arr', 1, ((9, 1, -1),))]}
args, bases = make_inputs(spec)
try:
    print("return", repr(mod.f(*args)))
except Exception as e:
    print("raised", type(e).__name__, e)
for k, b in enumerate(bases):
    print("base", k, b.ravel().tolist() if b.size <= 60 else b)
