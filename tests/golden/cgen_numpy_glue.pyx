# Golden (C backend): Python-level glue in a def function: a numpy import,
# allocation with keyword arguments, a typed view of the new array, default
# arguments, Python // and % on C integers, and returning a tuple.
import numpy as np
from cython.parallel import prange

def outer(double[::1] x, double[::1] y, double scale=1.0, dtype=None):
    cdef Py_ssize_t i, j
    res = np.empty((x.shape[0], y.shape[0]), dtype=np.float64 if dtype is None else dtype)
    cdef double[:, ::1] r = res
    for i in prange(x.shape[0], nogil=True):
        for j in range(y.shape[0]):
            r[i, j] = scale * x[i] * y[j]
    return res, r.shape[0] // 2, r.shape[1] % 3
