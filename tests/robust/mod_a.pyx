# One of two modules that work on the same arrays in turns (run.py,
# two_modules); add_one is the threads test's region.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

def twice_plus(long[:] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * 2 + 1

def total_a(long[:] a):
    cdef Py_ssize_t i
    cdef long s = 0
    for i in prange(a.shape[0], nogil=True):
        s += a[i]
    return s

def add_one(long[:] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] + 1
