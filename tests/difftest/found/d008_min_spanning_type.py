# driver of d008_min_spanning_type.pyx (tests/difftest): run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from inputs import make_inputs
import numpy as np
np.set_printoptions(threshold=60)
mod = __import__("d008_min_spanning_type".split(".")[0]) if False else __import__(sys.argv[1] if len(sys.argv) > 1 else "d008_min_spanning_type")
spec = {'bases': [('byte', (1, 1), 'C', ('int', -8, 8), 692305067), ('ushort', (3, 3), 'C', ('int', 0, 100), 257973755)], 'args': [('arr', 0, ((0, 1, 1), (0, 1, 1))), ('arr', 1, ((2, 3, 1), (2, 1, -1)))]}
args, bases = make_inputs(spec)
try:
    print("return", repr(mod.f(*args)))
except Exception as e:
    print("raised", type(e).__name__, e)
for k, b in enumerate(bases):
    print("base", k, b.ravel().tolist() if b.size <= 60 else b)
