# expect-opencl: yes
# A fixed-width histogram, written the usual two-pass way: a prange computes
# each sample's bin into an intp buffer, a serial loop counts them into a
# typed ndarray made with np.zeros.
# cython: boundscheck=False, wraparound=False
cimport numpy as np
import numpy as np
from cython.parallel import prange
from libc.math cimport floor

np.import_array()


def histogram(np.ndarray[np.float64_t, ndim=1] x, double lo, double hi, int nbins):
    cdef Py_ssize_t n = x.shape[0], i
    cdef double width = (hi - lo) / nbins
    cdef np.ndarray[np.intp_t, ndim=1] which = np.empty(n, dtype=np.intp)
    cdef np.ndarray[np.int64_t, ndim=1] counts = np.zeros(nbins, dtype=np.int64)
    cdef np.intp_t b
    for i in prange(n, nogil=True):
        if x[i] < lo or x[i] > hi:
            which[i] = -1
        else:
            b = <np.intp_t>floor((x[i] - lo) / width)
            if b >= nbins:
                b = nbins - 1
            which[i] = b
    for i in range(n):
        if which[i] >= 0:
            counts[which[i]] += 1
    return counts
