# expect-error: 4:39 Only allowed buffer modes
cimport numpy as np

def f(np.ndarray[double, ndim=2, mode="rows"] a):
    return a[0, 0]
