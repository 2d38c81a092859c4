# expect-opencl: yes
# numpy buffer arguments as people write them: cimport numpy, a ctypedef'd
# dtype, np.ndarray[DTYPE_t, ndim=2] in prange loops (dtype first or as
# dtype=, ndim=, mode=), Cython's checks at the call.
# cython: boundscheck=False, wraparound=False
cimport cython
cimport numpy as cnp
import numpy as np
from cython.parallel import prange
from libc.math cimport sqrt
cnp.import_array()

ctypedef cnp.float64_t DTYPE_t

def pairwise(cnp.ndarray[DTYPE_t, ndim=2] X):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j, k
    cdef cnp.ndarray[DTYPE_t, ndim=2] D = np.empty((n, n), dtype=np.float64)
    cdef DTYPE_t s, t
    for i in prange(n, nogil=True):
        for j in range(n):
            s = 0
            for k in range(d):
                t = X[i, k] - X[j, k]
                s = s + t * t
            D[i, j] = sqrt(s)
    return D

def scale_rows(cnp.ndarray[double, ndim=2, mode="c"] a, cnp.ndarray[dtype=double, ndim=1] w):
    """in place: a[i, :] *= w[i]"""
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] * w[i]

def total(cnp.ndarray[cnp.float32_t] x):
    """ndim defaults to 1; float32 elements summed in double"""
    cdef double s = 0
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        s += x[i]
    return s

def col_sums(cnp.ndarray[cnp.int32_t, ndim=2, mode="fortran"] m):
    cdef cnp.ndarray[cnp.int64_t, ndim=1] out = np.zeros(m.shape[1], dtype=np.int64)
    cdef Py_ssize_t i, j
    for j in prange(m.shape[1], nogil=True):
        for i in range(m.shape[0]):
            out[j] += m[i, j]
    return out

@cython.boundscheck(True)
def first(cnp.ndarray[double] a):
    """reads only: a read-only array is accepted; None raises IndexError"""
    return a[0] + a[a.shape[0] - 1]
