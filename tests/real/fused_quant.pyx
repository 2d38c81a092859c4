# expect-opencl: yes
# ML preprocessing with fused types: min-max scaling to uint8, standardising,
# clipping, called with float32, float64, int64 and uint8 arrays.
# cython: boundscheck=False, wraparound=False
cimport cython
from cython.parallel import prange
from libc.stdint cimport uint8_t, int64_t
from libc.math cimport sqrt, floor
import numpy as np

ctypedef fused pixel_t:
    uint8_t
    int64_t
    float
    double


cdef inline double clamp(double v, double lo, double hi) noexcept nogil:
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


def quantize(pixel_t[:, ::1] x, uint8_t[:, ::1] out):
    cdef Py_ssize_t i, j
    cdef pixel_t lo = x[0, 0], hi = x[0, 0]
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] < lo:
                lo = x[i, j]
            if x[i, j] > hi:
                hi = x[i, j]
    cdef double scale = 255.0 / (hi - lo) if hi != lo else 0.0
    for i in prange(x.shape[0], nogil=True):
        for j in range(x.shape[1]):
            out[i, j] = <uint8_t>floor(clamp((x[i, j] - lo) * scale + 0.5, 0, 255))
    return lo, hi


def standardize(pixel_t[::1] x, double[::1] out):
    cdef Py_ssize_t i, n = x.shape[0]
    cdef double s = 0, ss = 0, mean, sd
    for i in prange(n, nogil=True):
        s += x[i]
    mean = s / n
    for i in prange(n, nogil=True):
        ss += (x[i] - mean) * (x[i] - mean)
    sd = sqrt(ss / n)
    for i in prange(n, nogil=True):
        out[i] = (x[i] - mean) / sd if sd > 0 else 0.0
    return mean, sd


cpdef pixel_t total(pixel_t[:] x) nogil:
    # the sum in the element type: uint8 and int64 wrap like C
    cdef pixel_t t = 0
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        t += x[i]
    return t


def saturate_add(pixel_t[::1] a, pixel_t[::1] b, pixel_t[::1] out, double top):
    cdef Py_ssize_t i
    cdef double v
    for i in prange(a.shape[0], nogil=True):
        v = <double>a[i] + <double>b[i]
        out[i] = <pixel_t>(top if v > top else v)
