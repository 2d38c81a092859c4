# Typed ndarray variables: cdef cnp.ndarray h = np.zeros(...) with .shape[k],
# .ndim, .dtype and item access as Cython allows; buffer locals assigned more
# than once; returning them; None and non-arrays.
cimport numpy as cnp
import numpy as np
from cython.parallel import prange
cnp.import_array()

def describe(n):
    cdef cnp.ndarray h = np.zeros(n)
    h[1] = 2.5
    return h, h.ndim, h.shape[0], h.dtype, h[1], h.sum()

def normalise_rows(cnp.ndarray[double, ndim=2] a):
    """a new array whose rows sum to 1"""
    cdef Py_ssize_t i, j, n = a.shape[0], m = a.shape[1]
    cdef cnp.ndarray[double, ndim=1] tot = a.sum(axis=1)
    cdef cnp.ndarray[double, ndim=2] out = np.empty_like(a)
    for i in prange(n, nogil=True):
        for j in range(m):
            out[i, j] = a[i, j] / tot[i]
    return out

def cumulative(int k, Py_ssize_t n):
    """a buffer local re-bound k times: each assignment acquires its buffer again"""
    cdef cnp.ndarray[cnp.int64_t, ndim=1] v = np.arange(n, dtype=np.int64)
    cdef Py_ssize_t i, r
    for r in range(k):
        v = v * 2
        for i in range(n):
            v[i] += 1
    return v

def as_ndarray(o):
    cdef cnp.ndarray x = o
    return x

def is_none(cnp.ndarray[double, ndim=1] a=None):
    return a is None

def rows(cnp.ndarray[double, ndim=2] a):
    """a[i] with fewer indices than ndim indexes the object: a row array"""
    return a[1]

def shape_of(cnp.ndarray x):
    return x.shape[0], x.shape[x.ndim - 1], x.ndim
