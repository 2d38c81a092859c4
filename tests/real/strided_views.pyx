# expect-opencl: yes
# Kernels called on strided, reversed and Fortran-ordered arrays: a colour
# channel of a sub-sampled video block, column sums of a Fortran matrix,
# negative indices with wraparound on and off.
cimport cython
from cython.parallel import prange
import numpy as np


@cython.boundscheck(False)
@cython.wraparound(False)
def plane_mean(const float[:, :, :] vol, double[::1] out):
    # vol is typically a[::2, :, 1] of a 4-D array or a transposed block
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(vol.shape[0], nogil=True):
        s = 0
        for j in range(vol.shape[1]):
            for k in range(vol.shape[2]):
                s = s + vol[i, j, k]
        out[i] = s / (vol.shape[1] * vol.shape[2])


@cython.boundscheck(False)
@cython.wraparound(False)
def fortran_colnorm(double[::1, :] a, double[::1] out):
    cdef Py_ssize_t i, j
    cdef double s
    for j in prange(a.shape[1], nogil=True):
        s = 0
        for i in range(a.shape[0]):
            s = s + a[i, j] * a[i, j]
        out[j] = s
        for i in range(a.shape[0]):
            a[i, j] = a[i, j] / (1.0 + s)


def edge_diff(const double[:, :] img, double[:, :] out):
    # wraparound on: index -1 is the last column, as in Python
    cdef Py_ssize_t i, j, w = img.shape[1]
    for i in prange(img.shape[0], nogil=True):
        out[i, 0] = img[i, 0] - img[i, -1]
        for j in range(1, w):
            out[i, j] = img[i, j] - img[i, j - 1]


@cython.boundscheck(False)
@cython.wraparound(False)
def tail_ratio(const double[::1] x, double[::1] out, int lag):
    # wraparound off, the index is computed so it never goes negative
    cdef Py_ssize_t i, n = x.shape[0]
    for i in prange(n, nogil=True):
        out[i] = x[i] / x[(i - lag + n) % n]


def sub_block(double[:, :, ::1] v, Py_ssize_t c):
    cdef double[:, :] plane = v[::2, 1:, c]
    cdef Py_ssize_t i, j
    cdef double best = -1e300
    cdef double[::1] rowmax = np.empty(plane.shape[0])
    for i in prange(plane.shape[0], nogil=True):
        rowmax[i] = plane[i, 0]
        for j in range(plane.shape[1]):
            if plane[i, j] > rowmax[i]:
                rowmax[i] = plane[i, j]
    for i in range(plane.shape[0]):
        if rowmax[i] > best:
            best = rowmax[i]
    return best, np.asarray(rowmax)
