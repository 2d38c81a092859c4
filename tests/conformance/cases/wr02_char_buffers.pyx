# Buffer formats of 1-byte integers, as Cython checks them: "chars don't
# care about sign", so a 'c' buffer is a view of char, signed char and
# unsigned char, and a char view takes np.int8 and numpy's S1 (signed
# formats on x86-64), but not np.uint8.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def weigh(const char[::1] s, long[::1] out):
    cdef Py_ssize_t i
    for i in prange(s.shape[0], nogil=True):
        out[i] = s[i] * 3 + (s[i] >> 1)


def usum(const unsigned char[::1] s):
    cdef Py_ssize_t i
    cdef long t = 0
    for i in range(s.shape[0]):
        t += s[i]
    return t


def ssum(const signed char[::1] s):
    cdef Py_ssize_t i
    cdef long t = 0
    for i in range(s.shape[0]):
        t += s[i]
    return t
