# Histograms the way OpenMP code writes them: each thread fills its own
# malloc'd counts inside parallel(), then merges them under the GIL or an
# OpenMP lock; and row-wise prefix sums (serial scans inside a prange).
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange, parallel, threadid
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
cimport openmp
import numpy as np


def hist_gil(const unsigned char[::1] img, int nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    cdef long long[::1] c = counts
    cdef long long *local
    cdef Py_ssize_t i, n = img.shape[0]
    cdef int b, shift = 0
    while (256 >> shift) > nbins:
        shift += 1
    with nogil, parallel():
        local = <long long *> calloc(nbins, sizeof(long long))
        for i in prange(n, schedule='static'):
            local[img[i] >> shift] += 1
        with gil:
            for b in range(nbins):
                c[b] += local[b]
        free(local)
    return counts


def hist_lock(const double[::1] x, double lo, double hi, int nbins):
    counts = np.zeros(nbins, dtype=np.int32)
    cdef int[::1] c = counts
    cdef int *local
    cdef Py_ssize_t i
    cdef int b, k
    cdef double scale = nbins / (hi - lo)
    cdef openmp.omp_lock_t lock
    openmp.omp_init_lock(&lock)
    with nogil, parallel(num_threads=3):
        local = <int *> malloc(nbins * sizeof(int))
        memset(local, 0, nbins * sizeof(int))
        for i in prange(x.shape[0]):
            if x[i] >= lo and x[i] < hi:
                k = <int>((x[i] - lo) * scale)
                if k >= nbins:
                    k = nbins - 1
                local[k] += 1
        openmp.omp_set_lock(&lock)
        for b in range(nbins):
            c[b] += local[b]
        openmp.omp_unset_lock(&lock)
        free(local)
    openmp.omp_destroy_lock(&lock)
    return counts


def cumsum_rows(const double[:, :] x, double[:, ::1] out, long[:, ::1] run_len):
    # inclusive prefix sums per row and the length of the current run of positives
    cdef Py_ssize_t i, j
    cdef double acc
    cdef long r
    for i in prange(x.shape[0], nogil=True):
        acc = 0
        r = 0
        for j in range(x.shape[1]):
            acc = acc + x[i, j]
            out[i, j] = acc
            if x[i, j] > 0:
                r = r + 1
            else:
                r = 0
            run_len[i, j] = r


def exclusive_scan(const int[::1] counts, int[::1] offsets, int nchunks):
    # chunked two-pass scan: chunk totals in parallel, serial scan of totals,
    # then each chunk adds its base
    cdef Py_ssize_t n = counts.shape[0]
    cdef Py_ssize_t size = (n + nchunks - 1) // nchunks
    cdef Py_ssize_t c, j, lo, hi
    cdef int s
    totals = np.zeros(nchunks + 1, dtype=np.intc)
    cdef int[::1] t = totals
    for c in prange(nchunks, nogil=True):
        lo = c * size
        hi = min(lo + size, n)
        s = 0
        for j in range(lo, hi):
            s = s + counts[j]
        t[c + 1] = s
    for c in range(nchunks):
        t[c + 1] += t[c]
    for c in prange(nchunks, nogil=True):
        lo = c * size
        hi = min(lo + size, n)
        s = t[c]
        for j in range(lo, hi):
            offsets[j] = s
            s = s + counts[j]
    return totals[nchunks]
