# expect-opencl: yes
# Every in-place reduction operator Cython's prange knows, on float32 and
# integer accumulators, plus running min/max kept per row with `if`.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.stdint cimport int64_t, uint32_t, uint64_t, int8_t
import numpy as np


def reductions(float[::1] x, int64_t[::1] k, uint32_t[::1] bits):
    cdef Py_ssize_t i, n = x.shape[0]
    cdef float fsum = 0, fsub = 100
    cdef double prod = 1.0
    cdef int64_t isum = 0, isub = 0, imul = 1
    cdef uint32_t bor = 0, band = 0xFFFFFFFFu, bxor = 0
    cdef int cnt = 0
    for i in prange(n, nogil=True):
        fsum += x[i]
        fsub -= x[i] * 0.5
        prod *= 1.0 + x[i] * 1e-3
        isum += k[i]
        isub -= k[i] * 2
        if i % 97 == 0:
            imul *= (k[i] % 3) + 1
        bor |= bits[i]
        band &= bits[i] | 0x00F0000Fu
        bxor ^= bits[i]
        if x[i] > 0.5:
            cnt += 1
    return fsum, fsub, prod, isum, isub, imul, bor, band, bxor, cnt


def row_minmax(float[:, ::1] x, float[::1] lo, float[::1] hi, int[::1] argmin, int[::1] argmax):
    # ties: the first index wins for the minimum, the last one for the maximum
    cdef Py_ssize_t i, j
    cdef float mn, mx
    cdef int amn, amx
    for i in prange(x.shape[0], nogil=True):
        mn = x[i, 0]
        mx = x[i, 0]
        amn = 0
        amx = 0
        for j in range(1, x.shape[1]):
            if x[i, j] < mn:
                mn = x[i, j]
                amn = j
            if x[i, j] >= mx:
                mx = x[i, j]
                amx = j
        lo[i] = mn
        hi[i] = mx
        argmin[i] = amn
        argmax[i] = amx


def small_int_sum(int8_t[::1] v):
    # the accumulator is wider than the elements; products of int8 promote to int
    cdef Py_ssize_t i
    cdef long s = 0, sq = 0
    for i in prange(v.shape[0], nogil=True):
        s += v[i]
        sq += v[i] * v[i]
    return s, sq


def last_positive(double[::1] x):
    # lastprivate: after the loop, idx and val hold what the last iteration set
    cdef Py_ssize_t i
    cdef Py_ssize_t idx = -1
    cdef double val = 0
    for i in prange(x.shape[0], nogil=True):
        idx = i
        val = x[i] * 2
    return idx, val, i
