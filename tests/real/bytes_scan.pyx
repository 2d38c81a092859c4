# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.stdint cimport uint64_t, uint32_t
import numpy as np

cdef struct Stats:
    long lines
    long words
    long chars

cdef inline bint is_space(unsigned char c) noexcept nogil:
    return c == 32 or c == 9 or c == 10 or c == 13

def wc(const unsigned char[::1] data):
    cdef Stats st
    st.lines = 0; st.words = 0; st.chars = data.shape[0]
    cdef Py_ssize_t i, n = data.shape[0]
    cdef long lines = 0, words = 0
    for i in prange(n, nogil=True):
        if data[i] == 10:
            lines += 1
        if not is_space(data[i]) and (i == 0 or is_space(data[i - 1])):
            words += 1
    st.lines = lines
    st.words = words
    return st.lines, st.words, st.chars

cdef uint32_t fnv1a(const unsigned char[::1] s, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef uint32_t h = 2166136261u
    cdef Py_ssize_t k
    for k in range(lo, hi):
        h = (h ^ s[k]) * 16777619u
    return h

def chunk_hashes(const unsigned char[::1] data, Py_ssize_t chunk):
    cdef Py_ssize_t nchunks = (data.shape[0] + chunk - 1) // chunk
    out = np.zeros(nchunks, dtype=np.uint32)
    cdef uint32_t[::1] o = out
    cdef Py_ssize_t c, hi
    for c in prange(nchunks, nogil=True):
        hi = min((c + 1) * chunk, data.shape[0])
        o[c] = fnv1a(data, c * chunk, hi)
    return out

def first_zero(const unsigned char[::1] data):
    cdef Py_ssize_t i, found = -1
    for i in range(data.shape[0]):
        if data[i] == 0:
            found = i
            break
    return found
