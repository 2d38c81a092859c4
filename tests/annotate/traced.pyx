# The module of the annotate trace and browser tests (tests/annotate): regions
# OpenCL can take (a stencil, slice expressions, a reduction) and regions that
# stay native (an external C call, a parallel() block with threadid()).
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange, parallel, threadid
from libc.math cimport sqrt

cdef extern from *:
    """
    static double ext_twice(double x) { return 2.0 * x; }
    """
    double ext_twice(double x) nogil

def smooth(double[::1] x, double[::1] out):
    cdef Py_ssize_t i
    for i in prange(1, x.shape[0] - 1, nogil=True):
        out[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1]

def axpy(double a, double[::1] x, double[::1] y):
    y[:] = a * x[:] + y[:]

def norm(double[::1] x):
    return sqrt(sum(x[:] * x[:]))

def twice(double[::1] x):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        x[i] = ext_twice(x[i])

def per_thread(double[::1] x, double[::1] partial):
    cdef Py_ssize_t i
    cdef int tid
    with nogil, parallel(num_threads=2):
        tid = threadid()
        for i in prange(x.shape[0]):
            partial[tid] += x[i]
