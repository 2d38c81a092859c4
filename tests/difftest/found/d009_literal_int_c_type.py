# driver of d009_literal_int_c_type.pyx (tests/difftest): run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from inputs import make_inputs
import numpy as np
np.set_printoptions(threshold=60)
mod = __import__("d009_literal_int_c_type".split(".")[0]) if False else __import__(sys.argv[1] if len(sys.argv) > 1 else "d009_literal_int_c_type")
spec = {'bases': [('int_', (6, 6), 'C', ('edge', -4, 4), 519320717), ('uint16', (16, 11), 'C', ('int', 0, 100), 340965336), ('int32', (6, 8), 'C', ('edge', -4, 4), 385499811)], 'args': [('arr', 0, ((5, None, -1), (0, 6, 1))), ('arr', 1, ((0, 16, 3), (0, 11, 2))), ('arr', 2, ((0, 6, 1), (2, 8, 1))), ('scalar', 0)]}
args, bases = make_inputs(spec)
try:
    print("return", repr(mod.f(*args)))
except Exception as e:
    print("raised", type(e).__name__, e)
for k, b in enumerate(bases):
    print("base", k, b.ravel().tolist() if b.size <= 60 else b)
