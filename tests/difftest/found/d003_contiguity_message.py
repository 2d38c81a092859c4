import sys
import numpy as np
mod = __import__(sys.argv[1])
try:
    print(mod.f(np.zeros(8)[::2]))
except Exception as e:
    print(type(e).__name__, e)
