# cython.view.array(..., mode="fortran"): a fresh Fortran-ordered buffer,
# as a double[::1, :] view (strides: the first axis contiguous) and as an
# object numpy sees as F-contiguous.  (Cython leaves it uninitialised,
# cyocl zeroes it: the case writes every element it reads.)
# cython: boundscheck=False, wraparound=False
from cython.view cimport array as cvarray
from cython.parallel import prange
import numpy as np


def fill(int n, int m):
    cdef double[::1, :] a = cvarray(shape=(n, m), itemsize=sizeof(double), format='d', mode='fortran')
    cdef Py_ssize_t i, j
    for j in prange(m, nogil=True):
        for i in range(n):
            a[i, j] = i * 10 + j
    arr = np.asarray(a)
    return arr.tolist(), bool(arr.flags['F_CONTIGUOUS']), a.strides[0], a.strides[1]


def as_object():
    o = cvarray(shape=(2, 3), itemsize=4, format='i', mode='fortran')
    cdef int[:, :] b = o
    cdef int i, j
    for i in range(2):
        for j in range(3):
            b[i, j] = i - j
    return np.asarray(o).tolist(), bool(np.asarray(o).flags['F_CONTIGUOUS'])
