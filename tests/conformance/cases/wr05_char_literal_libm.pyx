# expect-opencl: yes
# Cython's char literal c'a' (a C char constant, not a bytes object), and
# libc.math's ldexp, scalbn, nearbyint, logb, ilogb and nextafter with their
# float variants, natively and in OpenCL kernels (which have no nearbyint or
# scalbn, and leave ilogb of 0 and NaN to the implementation: glibc gives
# INT_MIN for both, INT_MAX for an infinity).
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.math cimport ldexp, scalbn, nearbyint, logb, ilogb, nextafter
from libc.math cimport ldexpf, scalbnf, nearbyintf, logbf, ilogbf, nextafterf


def count_chars(const char[::1] s, long[::1] out):
    cdef Py_ssize_t i
    cdef long n = 0, m = 0
    for i in prange(s.shape[0], nogil=True):
        if s[i] == c'a' or s[i] == c'\n':
            n += 1
        m += s[i] - c'0'
    out[0] = n
    out[1] = m


def char_values():
    cdef char c = c'z'
    return c, c - c'a', c'\\', c'\x7f', c'\'', c"q"


def fns(const double[::1] x, const int[::1] k, double[::1] out, int[::1] iout):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[6 * i] = ldexp(x[i], k[i])
        out[6 * i + 1] = scalbn(x[i], -k[i])
        out[6 * i + 2] = nearbyint(x[i])
        out[6 * i + 3] = logb(x[i])
        out[6 * i + 4] = nextafter(x[i], 0.0)
        out[6 * i + 5] = nextafter(x[i], x[i] + 1.0)
        iout[i] = ilogb(x[i])


def fns_f(const float[::1] x, const int[::1] k, float[::1] out, int[::1] iout):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[6 * i] = ldexpf(x[i], k[i])
        out[6 * i + 1] = scalbnf(x[i], -k[i])
        out[6 * i + 2] = nearbyintf(x[i])
        out[6 * i + 3] = logbf(x[i])
        out[6 * i + 4] = nextafterf(x[i], 0.0)
        out[6 * i + 5] = nextafterf(x[i], x[i] + 1.0)
        iout[i] = ilogbf(x[i])


def scalar(double x, int k):
    return ldexp(x, k), scalbn(x, k), nearbyint(x), logb(x), ilogb(x), nextafter(x, 0.0)
