# expect-opencl: yes
# cython: boundscheck=False, wraparound=False
"""Histograms of integer labels of any width (short, int, long) with
parallel bins, and a fused clip helper."""
from cython cimport integral
from cython.parallel import prange
import numpy as np


cdef inline integral clip(integral v, integral lo, integral hi) noexcept nogil:
    return lo if v < lo else hi if v > hi else v


def bincount(integral[::1] labels, Py_ssize_t nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    cdef long[::1] c = counts
    cdef Py_ssize_t b, i, n = labels.shape[0]
    cdef long k
    for b in prange(nbins, nogil=True, schedule="dynamic", chunksize=4):
        k = 0
        for i in range(n):
            if clip(labels[i], <integral>0, <integral>(nbins - 1)) == b:
                k = k + 1
        c[b] = k
    return counts


def label_sum(integral[:] labels):
    cdef Py_ssize_t i
    cdef long total = 0
    for i in prange(labels.shape[0], nogil=True):
        total += labels[i]
    return total
