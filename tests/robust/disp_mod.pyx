# The dispatcher's test module (tests/robust/dispatch.py): a region that is
# all launch overhead, one with many operations per element, a reduction.
from cython.parallel import prange

def tiny(double[:] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] + 1.0

def heavy(double[:] out, double[:] x):
    cdef Py_ssize_t i
    cdef int k
    cdef double v
    for i in prange(x.shape[0], nogil=True):
        v = x[i]
        for k in range(64):
            v = v * 0.5 + 0.25
        out[i] = v

def total(double[:] x):
    cdef Py_ssize_t i
    cdef double s = 0
    for i in prange(x.shape[0], nogil=True):
        s += x[i]
    return s
