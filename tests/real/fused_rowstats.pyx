# expect-opencl: yes
# cython: boundscheck=False, wraparound=False, cdivision=True
"""Row means and variances of a float or double matrix: a ctypedef'd
fused type, fused locals, a cast, and a compile-time branch on the type."""
from cython.parallel import prange
from libc.math cimport sqrt, sqrtf
import numpy as np

ctypedef fused real_t:
    float
    double


def row_stats(real_t[:, ::1] a, real_t[::1] mean, real_t[::1] std):
    cdef Py_ssize_t i, j, n = a.shape[0], m = a.shape[1]
    cdef real_t s, d, v
    for i in prange(n, nogil=True):
        s = 0
        for j in range(m):
            s = s + a[i, j]
        s = s / <real_t>m
        v = 0
        for j in range(m):
            d = a[i, j] - s
            v = v + d * d
        mean[i] = s
        if real_t is float:
            std[i] = sqrtf(v / <real_t>m)
        else:
            std[i] = sqrt(v / <real_t>m)


def standardize(real_t[:, ::1] a):
    cdef Py_ssize_t n = a.shape[0]
    dt = np.float32 if real_t is float else np.float64
    mean = np.empty(n, dtype=dt)
    std = np.empty(n, dtype=dt)
    row_stats(a, mean, std)
    return mean, std
