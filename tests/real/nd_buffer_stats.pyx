# expect-opencl: yes
# Old-style numpy buffers (np.ndarray[np.float64_t, ndim=2]) with module-level
# numpy code: z-scores per column, a covariance matrix, and weighted moving
# averages with a module-level kernel built at import.
# cython: boundscheck=False, wraparound=False
cimport numpy as np
import numpy as np
from cython.parallel import prange
from libc.math cimport sqrt

np.import_array()

ctypedef np.float64_t DTYPE_t
WEIGHTS = np.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0
EPS = 1e-12


def zscore(np.ndarray[DTYPE_t, ndim=2] X):
    cdef Py_ssize_t n = X.shape[0], m = X.shape[1], i, j
    cdef np.ndarray[DTYPE_t, ndim=1] mu = X.mean(axis=0)
    cdef np.ndarray[DTYPE_t, ndim=1] sd = np.empty(m)
    cdef np.ndarray[DTYPE_t, ndim=2] Z = np.empty((n, m))
    cdef double s, eps = EPS
    for j in prange(m, nogil=True):
        s = 0
        for i in range(n):
            s = s + (X[i, j] - mu[j]) * (X[i, j] - mu[j])
        sd[j] = sqrt(s / n) + eps
    for i in prange(n, nogil=True):
        for j in range(m):
            Z[i, j] = (X[i, j] - mu[j]) / sd[j]
    return Z, sd


def covariance(np.ndarray[DTYPE_t, ndim=2, mode="c"] X):
    cdef Py_ssize_t n = X.shape[0], m = X.shape[1], a, b, i
    cdef np.ndarray[DTYPE_t, ndim=2] C = np.zeros((m, m))
    cdef np.ndarray[DTYPE_t, ndim=1] mu = X.mean(axis=0)
    cdef double s
    for a in prange(m, nogil=True, schedule='dynamic'):
        for b in range(a, m):
            s = 0
            for i in range(n):
                s = s + (X[i, a] - mu[a]) * (X[i, b] - mu[b])
            C[a, b] = s / (n - 1)
            C[b, a] = s / (n - 1)
    return C


def smooth(np.ndarray[DTYPE_t, ndim=1] x):
    cdef np.ndarray[DTYPE_t, ndim=1] w = WEIGHTS
    cdef Py_ssize_t n = x.shape[0], i, k, r = w.shape[0] // 2
    cdef np.ndarray[DTYPE_t, ndim=1] y = np.empty(n)
    cdef double acc
    cdef Py_ssize_t t
    for i in prange(n, nogil=True):
        acc = 0
        for k in range(w.shape[0]):
            t = i + k - r
            if t < 0:
                t = -t
            elif t >= n:
                t = 2 * n - 2 - t
            acc = acc + w[k] * x[t]
        y[i] = acc
    return y
