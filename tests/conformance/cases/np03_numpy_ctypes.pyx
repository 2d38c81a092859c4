# expect-opencl: yes
# numpy's C types anywhere a C type goes: locals, arguments, return types,
# ctypedefs, casts, memoryview dtypes; 'cimport numpy' without an alias and
# 'from numpy cimport ...'.
# cython: boundscheck=False, wraparound=False
cimport numpy
from numpy cimport ndarray, float32_t, uint8_t, import_array
import numpy as np
from cython.parallel import prange
import_array()

ctypedef numpy.float64_t real_t
ctypedef numpy.intp_t index_t

cdef inline real_t sq(real_t x) noexcept nogil:
    return x * x

def sumsq(real_t[:, ::1] a):
    cdef index_t i, j
    cdef real_t s = 0
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            s += sq(a[i, j])
    return s

def threshold(const float32_t[::1] x, float32_t t, uint8_t[::1] out):
    cdef numpy.npy_intp i
    for i in prange(x.shape[0], nogil=True):
        out[i] = <uint8_t>(x[i] > t)

def widths():
    cdef numpy.int8_t a = -128
    cdef numpy.int16_t b = -32768
    cdef numpy.int32_t c = -2147483647 - 1
    cdef numpy.int64_t d = -9223372036854775807 - 1
    cdef numpy.uint8_t e = 255
    cdef numpy.uint16_t f = 65535
    cdef numpy.uint32_t g = 4294967295
    cdef numpy.uint64_t h = 18446744073709551615
    cdef numpy.float32_t x = 0.1
    cdef numpy.double_t y = 0.1
    cdef numpy.complex128_t z = 1 + 2j
    cdef numpy.uintp_t u = sizeof(numpy.intp_t)
    e += 1
    f += 1
    return a, b, c, d, e, f, g, h, x, y, z, u

def hist(ndarray[numpy.int64_t, ndim=1] v, Py_ssize_t nbins):
    cdef ndarray[numpy.int64_t, ndim=1] h = np.zeros(nbins, dtype=np.int64)
    cdef Py_ssize_t i
    for i in range(v.shape[0]):
        h[v[i] % nbins] += 1
    return h
