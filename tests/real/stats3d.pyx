# cython: boundscheck=False, wraparound=False, cdivision=True
cimport cython
cimport numpy as cnp
from cython.parallel import prange
from cython cimport floating
import numpy as np

@cython.cdivision(True)
def channel_mean(floating[:, :, :] img):
    cdef Py_ssize_t h = img.shape[0], w = img.shape[1], c = img.shape[2]
    cdef Py_ssize_t y, x, k
    cdef double[::1] acc = np.zeros(c)
    cdef double t
    for k in range(c):
        t = 0
        for y in prange(h, nogil=True):
            for x in range(w):
                t += img[y, x, k]
        acc[k] = t / (h * w)
    return np.asarray(acc)

def clip_rows(cnp.ndarray[cnp.float64_t, ndim=2, mode="c"] a, double lo, double hi):
    cdef Py_ssize_t i, j
    cdef Py_ssize_t n = a.shape[0], m = a.shape[1]
    cdef long clipped = 0
    for i in prange(n, nogil=True, schedule='dynamic', chunksize=8):
        for j in range(m):
            if a[i, j] < lo:
                a[i, j] = lo
                clipped += 1
            elif a[i, j] > hi:
                a[i, j] = hi
                clipped += 1
    return clipped

def prod_reduce(double[::1] v):
    cdef Py_ssize_t i
    cdef double p = 1.0
    cdef int bits = 0
    for i in prange(v.shape[0], nogil=True):
        p *= v[i]
        bits |= <int>(v[i] > 1.0) << (i % 8)
    return p, bits

def find_first_negative(double[::1] v):
    cdef Py_ssize_t i
    cdef Py_ssize_t at = -1
    for i in prange(v.shape[0], nogil=True):
        if v[i] < 0:
            at = i
            break
    return at >= 0

def strided_sum(double[:, :, :] a, int step):
    cdef Py_ssize_t i, j
    cdef double s = 0
    for i in prange(0, a.shape[0], step, nogil=True):
        for j in range(a.shape[1] - 1, -1, -2):
            s += a[i, j, a.shape[2] - 1]
    return s
