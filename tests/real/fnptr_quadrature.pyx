# A quadrature driver as numerical course material writes it: a ctypedef of
# a function pointer, integrands as noexcept nogil cdef functions and
# libc.math functions, the integrand chosen by name outside the loop and
# called through the pointer in a prange (such a region runs natively).
# cython: cdivision=True
from cython.parallel import prange
from libc.math cimport cos, exp, log1p
import numpy as np

ctypedef double (*integrand_t)(double) noexcept nogil


cdef double gaussian(double x) noexcept nogil:
    return exp(-x * x)


cdef double poly(double x) noexcept nogil:
    return 3.0 * x * x - 2.0 * x + 1.0


cdef double simpson(integrand_t f, double a, double b, int n) noexcept nogil:
    # n even
    cdef double h = (b - a) / n
    cdef double s = f(a) + f(b)
    cdef int k
    for k in range(1, n):
        s += (4.0 if k % 2 else 2.0) * f(a + k * h)
    return s * h / 3.0


cdef integrand_t lookup(str name) except? NULL:
    if name == "gaussian":
        return gaussian
    if name == "poly":
        return poly
    if name == "cos":
        return cos
    if name == "log1p":
        return log1p
    raise KeyError(name)


def integrate(str name, double[:] upper, int n=100):
    cdef integrand_t f = lookup(name)
    cdef Py_ssize_t i
    res = np.empty(upper.shape[0])
    cdef double[:] r = res
    for i in prange(upper.shape[0], nogil=True, schedule="dynamic"):
        r[i] = simpson(f, 0.0, upper[i], n)
    return res
