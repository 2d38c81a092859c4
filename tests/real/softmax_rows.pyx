# cython: language_level=3
cimport cython
from cython.parallel cimport prange
from libc.math cimport exp, log, fmax
import numpy as np

@cython.boundscheck(False)
@cython.wraparound(False)
def softmax(float[:, :] x not None):
    cdef int n = x.shape[0], m = x.shape[1]
    out = np.empty((n, m), dtype=np.float32)
    cdef float[:, :] o = out
    cdef int i, j
    cdef float mx, s
    for i in prange(n, nogil=True):
        mx = x[i, 0]
        for j in range(1, m):
            mx = max(mx, x[i, j])
        s = 0
        for j in range(m):
            o[i, j] = exp(x[i, j] - mx)
            s = s + o[i, j]
        for j in range(m):
            o[i, j] /= s
    return out

@cython.boundscheck(False)
@cython.wraparound(False)
cpdef double logsumexp(double[::1] v) nogil:
    cdef Py_ssize_t i
    cdef double mx = v[0], s = 0
    for i in range(v.shape[0]):
        mx = fmax(mx, v[i])
    for i in prange(v.shape[0]):
        s += exp(v[i] - mx)
    return mx + log(s)
