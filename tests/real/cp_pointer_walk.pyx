# Pointer-walking reductions the way C-minded Cython is written: a nogil
# cdef function takes a pointer and a length and walks it; the prange hands
# it &x[i, 0] for each row; a NULL-terminated style early stop; qualified
# libc calls.
# cython: boundscheck=False, wraparound=False
import numpy as np
cimport libc.string
from cython.parallel import prange

cdef double sum_sq(const double *p, Py_ssize_t n) noexcept nogil:
    cdef const double *end = p + n
    cdef double s = 0
    while p != end:
        s += p[0] * p[0]
        p += 1
    return s

cdef Py_ssize_t first_negative(const double *p, Py_ssize_t n) noexcept nogil:
    cdef const double *q = p
    while q < p + n:
        if q[0] < 0:
            return q - p
        q += 1
    return -1

def row_stats(double[:, ::1] x):
    cdef Py_ssize_t n = x.shape[0], m = x.shape[1], i
    ss = np.zeros(n)
    neg = np.zeros(n, dtype=np.intp)
    cdef double[::1] s = ss
    cdef Py_ssize_t[::1] g = neg
    cdef double total = 0
    if m == 0:
        return ss, neg, 0.0
    for i in prange(n, nogil=True):
        s[i] = sum_sq(&x[i, 0], m)
        g[i] = first_negative(&x[i, 0], m)
        total += s[i]
    return ss, neg, total

def zero_rows(double[:, ::1] x, Py_ssize_t[:] rows):
    cdef Py_ssize_t k
    for k in range(rows.shape[0]):
        libc.string.memset(&x[rows[k], 0], 0, x.shape[1] * sizeof(double))
