# An index out of bounds on several axes: the IndexError names the axis
# Cython's check names (it tests every axis and keeps the last failing one),
# natively and in the OpenCL kernels.
cimport cython
cimport numpy as cnp
from cython.parallel import prange


def get2(double[:, :] a, Py_ssize_t i, Py_ssize_t j):
    return a[i, j]


def get3(double[:, :, :] a, Py_ssize_t i, Py_ssize_t j, Py_ssize_t k):
    return a[i, j, k]


def set3(double[:, :, :] a, Py_ssize_t i, Py_ssize_t j, Py_ssize_t k):
    a[i, j, k] = 1.0


@cython.wraparound(False)
def get2_nowrap(double[:, :] a, Py_ssize_t i, Py_ssize_t j):
    return a[i, j]


def buf2(cnp.ndarray[double, ndim=2] a, long i, long j):
    return a[i, j]


def par2(double[:, :] a, Py_ssize_t off0, Py_ssize_t off1):
    cdef Py_ssize_t i
    cdef double s = 0
    for i in prange(a.shape[0], nogil=True):
        s += a[i + off0, i + off1]
    return s


def par3(double[:, :, :] a, Py_ssize_t o0, Py_ssize_t o1, Py_ssize_t o2):
    cdef Py_ssize_t i
    cdef double s = 0
    for i in prange(a.shape[0], nogil=True):
        s += a[i + o0, o1, o2]
    return s


def par3_store(double[:, :, :] a, Py_ssize_t o1, Py_ssize_t o2):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            a[i, j + o1, j + o2] = 2.0
