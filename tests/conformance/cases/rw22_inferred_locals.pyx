# Untyped locals get Cython's "safe" inferred C types (TypeInference's
# safe_spanning_type): integers that never meet an overflowing operator,
# len(), floats (a float stays float; mixed values span to double), double
# complex, pointers, structs and True/False keep their C type, so they can
# be used without the GIL; anything else, a literal beyond 32 bits or an
# integer under arithmetic, is a Python object.  Literals above 2**63 - 1
# are C literals where cast to, or initialising, a C integer.
from cython.parallel import prange
from libc.stdint cimport uint64_t
import numpy as np

cdef struct Pair:
    double a
    double b


def clip_scale(int[:, ::1] a, int lo, int hi, int k):
    # the shape of Cython's docs' compute_prange.pyx: untyped bounds
    x_max = a.shape[0]
    y_max = a.shape[1]
    cdef int[:, ::1] o = a.copy()
    cdef Py_ssize_t x, y
    for x in prange(x_max, nogil=True):
        for y in range(y_max):
            o[x, y] = min(max(a[x, y], lo), hi) * k
    return x_max, sum([o[i, j] for i in range(x_max) for j in range(y_max)])


def total(double[:] v):
    s = 0                      # long and double: a double reduction
    for i in prange(v.shape[0], nogil=True):
        s += v[i]
    return s, type(s).__name__


def products(float[:] f):
    a = f[0] * f[1]            # one float value: float arithmetic
    w = f[0]
    w = w * f[1]               # spanned with itself: double
    return a, w


def mixed(double[:] v, list items):
    n = len(items)             # Py_ssize_t
    big = 10000000000          # beyond 32 bits: a Python int
    sq = big * big
    flag = True
    cdef double d = 2.0
    p = &d
    pr = Pair(1.5, 2.5)
    z = 1j * v[0]
    cdef double t = 0
    cdef Py_ssize_t i
    for i in prange(n, nogil=True):
        if flag:
            t += v[i] * p[0] + pr.a * pr.b + z.imag
    return t, sq, n


cdef uint64_t mix64(uint64_t z) noexcept nogil:
    cdef uint64_t m = 0xBF58476D1CE4E5B9
    z = z + <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * m
    return z ^ (z >> 31)


def hashes(int n):
    cdef uint64_t[:] out = np.zeros(n, dtype="uint64")
    cdef Py_ssize_t i
    for i in prange(n, nogil=True):
        out[i] = mix64(i)
    return [out[i] for i in range(n)], <uint64_t>18446744073709551615
