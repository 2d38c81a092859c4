# Older numpy kernels reach the memory of a buffer-typed ndarray through its
# C field .data (numpy's PyArray_DATA: the first element, a char *), cast
# to the element's pointer type, or through &a[0]; the pointer is read in a
# prange (natively: a region with a pointer stays native).
cimport numpy as np
import numpy as np
from cython.parallel import prange
from libc.math cimport sqrt as csqrt

np.import_array()


def root_sum(np.ndarray[double, ndim=1] a):
    cdef double *p = <double *> a.data
    cdef double *q = &a[0]
    cdef Py_ssize_t i, n = a.shape[0]
    cdef double s = 0
    for i in prange(n, nogil=True):
        s += csqrt(p[i]) + q[i]
    return s, p == q


def fill_rows(np.ndarray[np.int32_t, ndim=2, mode="c"] m):
    cdef np.int32_t *d = <np.int32_t *> m.data
    cdef Py_ssize_t k, total = m.shape[0] * m.shape[1]
    for k in prange(total, nogil=True):
        d[k] = <np.int32_t> (k * 3)
    return m


def first_of_reversed(np.ndarray[double, ndim=1] a):
    return (<double *> a.data)[0]
