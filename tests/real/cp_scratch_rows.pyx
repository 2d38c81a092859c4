# A common Cython idiom: every thread mallocs its scratch buffer inside
# parallel(), the prange inside it uses the buffer, the thread frees it at
# the end. Here: per-row moving averages then the row's maximum.
# cython: boundscheck=False, wraparound=False, cdivision=True
import numpy as np
from libc.stdlib cimport malloc, free, abort
from cython.parallel import prange, parallel

def row_peak_of_moving_average(double[:, ::1] x, int w):
    cdef Py_ssize_t n = x.shape[0], m = x.shape[1], i, j
    cdef int k
    cdef double *buf
    cdef double acc, best
    if w < 1 or w > m:
        raise ValueError("window must be between 1 and the row length")
    out = np.empty(n)
    cdef double[::1] o = out
    with nogil, parallel():
        buf = <double *> malloc((m - w + 1) * sizeof(double))
        if buf == NULL:
            abort()
        for i in prange(n, schedule='dynamic'):
            for j in range(m - w + 1):
                acc = 0
                for k in range(w):
                    acc = acc + x[i, j + k]
                buf[j] = acc / w
            best = buf[0]
            for j in range(1, m - w + 1):
                if buf[j] > best:
                    best = buf[j]
            o[i] = best
        free(buf)
    return out
