# expect-opencl: yes
# Fused numpy types in buffer syntax and in memoryview dtypes.
# cython: boundscheck=False, wraparound=False
cimport numpy as cnp
import numpy as np
cimport cython
from cython.parallel import prange
cnp.import_array()

ctypedef fused DTYPE_t:
    cnp.float32_t
    cnp.float64_t

def colsum(DTYPE_t[:, ::1] a):
    cdef Py_ssize_t i, j
    out = np.zeros(a.shape[1], dtype=np.float64)
    cdef double[::1] o = out
    for j in prange(a.shape[1], nogil=True):
        for i in range(a.shape[0]):
            o[j] += a[i, j]
    return out

def weighted(cnp.ndarray[cython.floating, ndim=1] a, cython.floating w):
    cdef Py_ssize_t i
    cdef double s = 0
    for i in range(a.shape[0]):
        s += a[i] * w
    return s, cython.floating is double
