# driver of d011_ssize_rank_floordiv.pyx (tests/difftest): run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from inputs import make_inputs
import numpy as np
np.set_printoptions(threshold=60)
mod = __import__("d011_ssize_rank_floordiv".split(".")[0]) if False else __import__(sys.argv[1] if len(sys.argv) > 1 else "d011_ssize_rank_floordiv")
spec = {'bases': [('uint', (3, 2), 'C', ('int', 0, 100), 872594283)], 'args': [('arr', 0, ((2, 3, 2), (1, 2, 2)))]}
args, bases = make_inputs(spec)
try:
    print("return", repr(mod.f(*args)))
except Exception as e:
    print("raised", type(e).__name__, e)
for k, b in enumerate(bases):
    print("base", k, b.ravel().tolist() if b.size <= 60 else b)
