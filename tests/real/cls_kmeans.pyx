# expect-opencl: yes
# cython: boundscheck=False, wraparound=False, cdivision=True
# k-means in the style of public Cython code: the estimator is a cdef class
# holding its state (centers, labels) as memoryview attributes, its parallel
# loops in def methods reading them through self, a @property exposing the
# centers as an array, fit() driving assign()/update() until the centers
# settle.
import numpy as np
from cython.parallel import prange
from libc.math cimport INFINITY


cdef class KMeans:
    cdef readonly int k
    cdef readonly Py_ssize_t n_features
    cdef double[:, ::1] centers
    cdef long long[::1] labels_
    cdef public double tol
    cdef readonly int n_iter

    def __init__(self, double[:, ::1] init_centers, double tol=1e-10):
        self.centers = np.array(init_centers, dtype=np.float64)
        self.k = init_centers.shape[0]
        self.n_features = init_centers.shape[1]
        self.tol = tol
        self.n_iter = 0

    @property
    def cluster_centers_(self):
        return np.asarray(self.centers).copy()

    @property
    def labels(self):
        return np.asarray(self.labels_).copy()

    def assign(self, double[:, ::1] X):
        cdef Py_ssize_t n = X.shape[0], i, j, c
        cdef double d, t, best
        cdef long long arg
        labels = np.empty(n, dtype=np.int64)
        cdef long long[::1] lab = labels
        for i in prange(n, nogil=True, schedule='static'):
            best = INFINITY
            arg = 0
            for c in range(self.k):
                d = 0
                for j in range(self.n_features):
                    t = X[i, j] - self.centers[c, j]
                    d = d + t * t
                if d < best:
                    best = d
                    arg = c
            lab[i] = arg
        self.labels_ = lab
        return labels

    cdef double update(self, double[:, ::1] X):
        cdef Py_ssize_t n = X.shape[0], i, j, c
        sums = np.zeros((self.k, self.n_features))
        counts = np.zeros(self.k, dtype=np.int64)
        cdef double[:, ::1] s = sums
        cdef long long[::1] cnt = counts
        cdef double shift = 0, t
        for i in range(n):
            c = self.labels_[i]
            cnt[c] += 1
            for j in range(self.n_features):
                s[c, j] += X[i, j]
        for c in range(self.k):
            if cnt[c] == 0:
                continue
            for j in range(self.n_features):
                t = s[c, j] / cnt[c]
                shift += (t - self.centers[c, j]) * (t - self.centers[c, j])
                self.centers[c, j] = t
        return shift

    def fit(self, double[:, ::1] X, int max_iter=100):
        cdef int it
        cdef double shift
        for it in range(max_iter):
            self.assign(X)
            shift = self.update(X)
            self.n_iter = it + 1
            if shift <= self.tol:
                break
        return self

    def inertia(self, double[:, ::1] X):
        cdef double tot = 0, t
        cdef Py_ssize_t i, j
        for i in prange(X.shape[0], nogil=True):
            for j in range(self.n_features):
                t = X[i, j] - self.centers[self.labels_[i], j]
                tot += t * t
        return tot
