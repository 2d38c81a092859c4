# The regions fault_py.py runs while clshim.c makes OpenCL calls fail: an
# elementwise write into a new array, a reduction, an in-place update, and
# two regions in one def call on the same array (data that may stay on the
# device between them, copied back at the return).
# cython: boundscheck=False, wraparound=False
import numpy as np
from cython.parallel import prange

def scaled(double[::1] x, double k):
    cdef Py_ssize_t i
    cdef Py_ssize_t n = x.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    for i in prange(n, nogil=True):
        o[i] = x[i] * k + 1.0
    return out

def total(long[::1] a):
    cdef Py_ssize_t i
    cdef long s = 0
    for i in prange(a.shape[0], nogil=True):
        s += a[i]
    return s

def bump(double[:] a, double d):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * 0.5 + d

def two_steps(long[::1] a):
    cdef Py_ssize_t i
    cdef long s = 0
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * 3 - 1
    for i in prange(a.shape[0], nogil=True):
        s += a[i]
    return s

def three_steps(long[::1] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * 3 - 1
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] + 5
