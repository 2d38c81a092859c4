# expect-opencl: yes
# Row normalisation to unit L2 norm, returning a new cnp.ndarray; rows of
# zeros stay zero.  Typed ndarray locals (with and without a buffer), .shape,
# .ndim and .dtype checks before the parallel loop.
# cython: boundscheck=False, wraparound=False
cimport numpy as cnp
import numpy as np
from cython.parallel import prange
from libc.math cimport sqrt

cnp.import_array()


def normalize_rows(cnp.ndarray X):
    if X.ndim != 2 or X.dtype != np.float64:
        raise TypeError("expected a 2-D float64 array")
    cdef cnp.ndarray[double, ndim=2] A = X
    cdef Py_ssize_t n = A.shape[0], m = A.shape[1], i, j
    cdef cnp.ndarray[double, ndim=2, mode="c"] out = np.empty((n, m))
    cdef double s
    for i in prange(n, nogil=True):
        s = 0
        for j in range(m):
            s = s + A[i, j] * A[i, j]
        if s > 0:
            s = 1.0 / sqrt(s)
        for j in range(m):
            out[i, j] = A[i, j] * s
    return out
