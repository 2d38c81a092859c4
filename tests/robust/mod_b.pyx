# The other module of run.py's two_modules test.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

def minus3(long[:] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] - 3

def total_b(long[:] a):
    cdef Py_ssize_t i
    cdef long s = 0
    for i in prange(a.shape[0], nogil=True):
        s += a[i] * 2
    return s

def halve_into(long[:] src, long[:] dst):
    cdef Py_ssize_t i
    for i in prange(src.shape[0], nogil=True):
        dst[i] = src[i] // 2
