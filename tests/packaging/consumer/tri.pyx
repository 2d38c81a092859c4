# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def triad(double[::1] a, double[::1] b, double s, double[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] + s * b[i]


def total(double[::1] a):
    cdef Py_ssize_t i
    cdef double t = 0.0
    for i in prange(a.shape[0], nogil=True):
        t += a[i]
    return t
