# expect-opencl: yes
# Integer kernels as hashing, bucketing and fixed-point code writes them:
# Python-style // and % on negative numbers (cdivision off and on), shifts on
# signed and unsigned values, 32-bit unsigned wrap, int/float promotion.
# cython: boundscheck=False, wraparound=False
cimport cython
from cython.parallel import prange
from libc.stdint cimport uint32_t, int16_t, int32_t, int64_t, uint8_t
import numpy as np


def py_divmod(long[::1] a, long[::1] b, long[::1] q, long[::1] r):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@cython.cdivision(True)
def c_divmod(int[::1] a, int[::1] b, int[::1] q, int[::1] r):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def bucket(double[::1] x, double width, long[::1] out):
    # floor bucketing of negative coordinates, and a float modulo (wrap angle)
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = <long>(x[i] // width) * 1000 + <long>(x[i] % width)


def wrap_angle(double[::1] t, double[::1] out):
    cdef Py_ssize_t i
    cdef double two_pi = 6.283185307179586
    for i in prange(t.shape[0], nogil=True):
        out[i] = t[i] % two_pi


def fnv_rows(uint8_t[:, ::1] data, uint32_t[::1] out):
    cdef Py_ssize_t i, j
    cdef uint32_t h
    for i in prange(data.shape[0], nogil=True):
        h = 2166136261u
        for j in range(data.shape[1]):
            h = h ^ data[i, j]
            h = h * 16777619u
        out[i] = (h >> 7) ^ (h << 3)


def shifts(int32_t[::1] a, int32_t[::1] sr, uint32_t[::1] ur, int64_t[::1] sl):
    cdef Py_ssize_t i
    cdef int k
    for i in prange(a.shape[0], nogil=True):
        k = i % 13
        sr[i] = a[i] >> k
        ur[i] = (<uint32_t>a[i]) >> k
        sl[i] = (<int64_t>a[i]) << k


def q15_mul(int16_t[::1] a, int16_t[::1] b, int16_t[::1] out):
    cdef Py_ssize_t i
    cdef int32_t p
    for i in prange(a.shape[0], nogil=True):
        p = (<int32_t>a[i] * b[i] + (1 << 14)) >> 15
        if p > 32767:
            p = 32767
        elif p < -32768:
            p = -32768
        out[i] = <int16_t>p


def promote(int[::1] a, float[::1] f, double[::1] out, int[::1] t):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] / 3 + f[i] * a[i]      # int / int is true division
        t[i] = <int>(f[i] * -2.5)            # truncation toward zero
