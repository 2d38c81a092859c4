# expect-opencl: yes
# Sparse CSR mat-vec, its transpose by scatter with atomics-free per-row
# buckets, PageRank iterations and degree counts with index arrays.
# cython: boundscheck=False, wraparound=False, cdivision=True
from cython.parallel import prange
import numpy as np


def spmv(const double[::1] data, const int[::1] indices, const int[::1] indptr,
         const double[::1] x, double[::1] y):
    cdef int i, p
    cdef double acc
    for i in prange(indptr.shape[0] - 1, nogil=True, schedule='guided'):
        acc = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            acc = acc + data[p] * x[indices[p]]
        y[i] = acc


def row_max_abs(const double[::1] data, const int[::1] indptr, double[::1] out, int[::1] nnz):
    cdef Py_ssize_t i
    cdef int p
    cdef double m
    for i in prange(indptr.shape[0] - 1, nogil=True):
        m = 0.0
        nnz[i] = indptr[i + 1] - indptr[i]
        for p in range(indptr[i], indptr[i + 1]):
            if data[p] > m:
                m = data[p]
            elif -data[p] > m:
                m = -data[p]
        out[i] = m


def pagerank(const int[::1] indices, const int[::1] indptr, const int[::1] outdeg,
             int iters, double damping=0.85):
    # indptr/indices: in-edges of each node; outdeg: out-degree of each node
    cdef int n = indptr.shape[0] - 1
    cdef int it, i, p, src
    cdef double acc, dangling
    r = np.full(n, 1.0 / n)
    nr = np.empty(n)
    cdef double[::1] rv = r, nv = nr
    for it in range(iters):
        dangling = 0.0
        for i in prange(n, nogil=True):
            if outdeg[i] == 0:
                dangling += rv[i]
        for i in prange(n, nogil=True):
            acc = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                src = indices[p]
                acc = acc + rv[src] / outdeg[src]
            nv[i] = (1.0 - damping) / n + damping * (acc + dangling / n)
        rv[:] = nv
    return r
