# expect-opencl: yes
# Counter-based random numbers as simulation code writes them: 64-bit
# unsigned arithmetic with constants above 2**63 written as casts of hex
# literals (C literals in Cython), a seed per element so the result does
# not depend on the threads, size_t loop counters, then a reduction.
# cython: boundscheck=False, wraparound=False, cdivision=True
from cython.parallel import prange
from libc.stdint cimport uint64_t
import numpy as np


cdef inline uint64_t mix(uint64_t z) noexcept nogil:
    z = z + <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


def uniform(size_t n, uint64_t seed):
    out = np.empty(n)
    cdef double[::1] o = out
    cdef size_t i
    for i in prange(n, nogil=True):
        o[i] = <double>(mix(seed * n + i) >> 11) * (1.0 / 9007199254740992.0)
    return out


def coin_flips(size_t n, uint64_t seed):
    cdef size_t i
    cdef long long heads = 0
    cdef uint64_t mask = 0x8000000000000000
    for i in prange(n, nogil=True):
        if mix(seed + i) & mask:
            heads += 1
    return heads
