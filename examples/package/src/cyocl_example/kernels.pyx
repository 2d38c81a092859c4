# cython: boundscheck=False, wraparound=False
# Parallel loops compiled by cyocl: OpenMP natively, OpenCL kernels for the
# cyocl runtime (CYOCL_FORCE=opencl runs them on the OpenCL device).
from cython.parallel import prange


def saxpy(double a, double[::1] x, double[::1] y, double[::1] out):
    """out = a * x + y"""
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = a * x[i] + y[i]


def dot(double[::1] x, double[::1] y):
    """The sum of x * y (a parallel reduction)."""
    cdef Py_ssize_t i
    cdef double s = 0.0
    for i in prange(x.shape[0], nogil=True):
        s += x[i] * y[i]
    return s


def row_sums(double[:, ::1] m, double[::1] out):
    """out[i] = the sum of row i."""
    cdef Py_ssize_t i, j
    cdef double t
    for i in prange(m.shape[0], nogil=True):
        t = 0.0
        for j in range(m.shape[1]):
            t = t + m[i, j]
        out[i] = t
