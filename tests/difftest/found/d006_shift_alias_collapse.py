import sys
import numpy as np
mod = __import__(sys.argv[1])
for n in (1000, 300000, 2000000):
    a = np.zeros(n)
    mod.f(a, a)
    print(n, "wrong elements:", int(np.count_nonzero(a != np.arange(n))))
