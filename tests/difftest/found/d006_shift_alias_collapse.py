import sys
import numpy as np
import os
sys.path.insert(0, os.getcwd())  # the built module, not this driver of the same name
mod = __import__(sys.argv[1])
for n in (1000, 300000, 2000000):
    a = np.zeros(n)
    mod.f(a, a)
    print(n, "wrong elements:", int(np.count_nonzero(a != np.arange(n))))
