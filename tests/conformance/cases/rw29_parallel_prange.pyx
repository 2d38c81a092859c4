# expect-opencl: yes
# `with nogil, parallel():` around a prange alone, perhaps after
# assignments of values every thread computes alike, is that prange (the
# block's privates are undefined after it, Cython says): such regions get
# OpenCL kernels like a plain prange, reductions and num_threads included.
# Blocks that make threads explicit (threadid(), per-thread scratch, code
# after the prange) stay native.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange, parallel, threadid
from libc.stdlib cimport malloc, free
from libc.math cimport sqrt

def scale_rows(double[:, ::1] a, double s, double[:, ::1] out):
    cdef Py_ssize_t i, j
    with nogil, parallel():
        for i in prange(a.shape[0], schedule='guided'):
            for j in range(a.shape[1]):
                out[i, j] = a[i, j] * s

def shifted_norm(double[::1] x, double shift, int nt):
    cdef Py_ssize_t i, n = x.shape[0]
    cdef double h, scale, t = 0
    with nogil, parallel(num_threads=nt):
        h = 0.5 * shift
        scale = sqrt(<double>n) if n > 0 else 1.0
        for i in prange(n):
            t += (x[i] - h) * (x[i] - h) / scale
    return t

def count_above(int[::1] v, int lim):
    cdef Py_ssize_t i
    cdef long c = 0
    cdef int m
    with nogil, parallel():
        m = lim * 2
        for i in prange(v.shape[0], schedule='static'):
            if v[i] > m:
                c += 1
    return c

def by_thread(double[::1] x, double[::1] out):
    # threadid(): the block stays native
    cdef Py_ssize_t i
    cdef int tid
    with nogil, parallel(num_threads=2):
        tid = threadid()
        for i in prange(x.shape[0]):
            out[i] = x[i] + tid * 0.0

def scratch(double[::1] x, double[::1] out):
    # a per-thread buffer: native
    cdef Py_ssize_t i
    cdef double *tmp
    with nogil, parallel():
        tmp = <double *> malloc(sizeof(double))
        for i in prange(x.shape[0]):
            tmp[0] = x[i] * 3
            out[i] = tmp[0]
        free(tmp)
