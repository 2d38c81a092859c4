# cython: boundscheck=False, wraparound=False, cdivision=True
cimport cython
cimport numpy as cnp
import numpy as np
from cython.parallel import prange
from libc.math cimport INFINITY

cnp.import_array()

@cython.boundscheck(False)
def assign(const double[:, ::1] X, const double[:, ::1] C, long[::1] labels):
    cdef Py_ssize_t n = X.shape[0], k = C.shape[0], d = X.shape[1]
    cdef Py_ssize_t i, c, f
    cdef double best, dist, t
    cdef long arg
    cdef double inertia = 0.0
    for i in prange(n, nogil=True, schedule='static'):
        best = INFINITY
        arg = -1
        for c in range(k):
            dist = 0.0
            for f in range(d):
                t = X[i, f] - C[c, f]
                dist = dist + t * t
            if dist < best:
                best = dist
                arg = c
        labels[i] = arg
        inertia += best
    return inertia

def update(const double[:, ::1] X, const long[::1] labels, Py_ssize_t k):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, f
    cdef cnp.ndarray[cnp.float64_t, ndim=2] sums = np.zeros((k, d))
    cdef cnp.ndarray[cnp.int64_t, ndim=1] counts = np.zeros(k, dtype=np.int64)
    for i in range(n):
        counts[labels[i]] += 1
        for f in range(d):
            sums[labels[i], f] += X[i, f]
    for i in range(k):
        if counts[i] > 0:
            for f in range(d):
                sums[i, f] /= counts[i]
    return sums, counts
