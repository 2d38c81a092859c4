# Idioms of real kernels: a prange(nogil=True) inside a nogil cdef function
# (the function already runs without the GIL), a cdef function declared to
# return an `np.ndarray[double, ndim=1]` (to Cython just an ndarray),
# `view.base` (the exporter, for a slice too), and cython.operator's
# preincrement / predecrement as statements (++x, --x, ++p[i]) in
# parallel() blocks with thread-local malloc'd counters.
# cython: boundscheck=False, wraparound=False
# expect-opencl: yes
cimport cython
cimport numpy as cnp
import numpy as np
from cython.parallel cimport parallel, prange, threadid
from cython.operator cimport preincrement, predecrement
from libc.stdlib cimport malloc, free, abort


cdef double dot_parallel(double[::1] a, double[::1] b) noexcept nogil:
    cdef Py_ssize_t i
    cdef double c = 0
    for i in prange(a.shape[0], nogil=True, schedule='static'):
        c += a[i] * b[i]
    return c


def dot(double[::1] a, double[::1] b):
    return dot_parallel(a, b)


cdef cnp.ndarray[double, ndim=1] row_sums(double[:, :] x):
    out = np.zeros(x.shape[0])
    cdef int i, j
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i] = out[i] + x[i, j]
    return out


def sums(double[:, :] x):
    return row_sums(x)


def bases(double[:, ::1] x):
    cdef double[:, ::1] whole = x
    cdef double[:] col = x[1:, 2]
    return whole.base, col.base


def histogram(const unsigned char[::1] a, int nthreads):
    cdef Py_ssize_t i, k, n = a.shape[0]
    cdef long long *local
    cdef long long[256] counts
    cdef int down = 1000
    for k in range(256):
        counts[k] = 0
    with nogil, parallel(num_threads=nthreads):
        local = <long long *> malloc(256 * sizeof(long long))
        if local is NULL:
            abort()
        for k in range(256):
            local[k] = 0
        for i in prange(n, schedule='static'):
            preincrement(local[a[i]])
        with gil:
            for k in range(256):
                counts[k] += local[k]
        free(local)
    for k in range(10):
        predecrement(down)
    return [counts[k] for k in range(256)], down
