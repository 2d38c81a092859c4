# Function pointer types, as numerical Cython code writes them: a ctypedef
# of a noexcept nogil signature, cdef functions and libc.math functions
# taken as values, passed to a cdef integrator and called through the
# pointer inside a prange (such a region runs natively), NULL tests,
# pointer comparisons, a declarator in a cdef statement and in a parameter
# list, qsort with a comparison function in a parallel() block with a
# per-thread buffer; also `z.conjugate()` of a C complex.
from cython.parallel import prange
from libc.math cimport sin, exp, sqrt
from libc.stdlib cimport qsort, malloc, free
from cython.parallel import parallel
import numpy as np

ctypedef double (*unary_t)(double) noexcept nogil
ctypedef double (*binary_t)(double x, double y) noexcept nogil
ctypedef void (*fill_t)(double *out, Py_ssize_t n, double v) noexcept nogil


cdef double square(double x) noexcept nogil:
    return x * x


cdef double cube(double x) noexcept nogil:
    return x * x * x


cdef double weighted(double x, double y) noexcept nogil:
    return 0.25 * x + 0.75 * y


cdef void fill(double *out, Py_ssize_t n, double v) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = v + i


cdef double trapezoid(unary_t f, double a, double b, int n) noexcept nogil:
    cdef double h = (b - a) / n
    cdef double s = 0.5 * (f(a) + f(b))
    cdef int k
    for k in range(1, n):
        s += f(a + k * h)
    return s * h


cdef unary_t pick(int which) noexcept nogil:
    if which == 0:
        return square
    elif which == 1:
        return cube
    elif which == 2:
        return sin
    elif which == 3:
        return exp
    return NULL


def integrate(double[:] lo, double[:] hi, int which, int n=64):
    cdef unary_t f = pick(which)
    if f is NULL:
        raise ValueError("no function %d" % which)
    out = np.empty(lo.shape[0])
    cdef double[:] o = out
    cdef Py_ssize_t i
    for i in prange(lo.shape[0], nogil=True):
        o[i] = trapezoid(f, lo[i], hi[i], n)
    return out


def combine(double[:] x, double[:] y):
    cdef binary_t g = weighted
    cdef unary_t r = sqrt
    cdef double t = 0
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        t += r(g(x[i], y[i]))
    return t, g == weighted, r != sqrt


cdef double twice(double (*h)(double) noexcept nogil, double x) noexcept nogil:
    return h(h(x))


def nested(double x):
    cdef double (*q)(double) noexcept nogil
    q = square
    cdef double a = twice(q, x)
    q = cube
    return a, twice(q, x), twice(exp, 0.0)


def filled(Py_ssize_t n, double v):
    cdef double[:] buf = np.zeros(n)
    cdef fill_t fl = fill
    fl(&buf[0], n, v)
    return np.asarray(buf)


def conj_sum(double complex[:] z):
    cdef double complex acc = 0
    cdef Py_ssize_t i
    for i in range(z.shape[0]):
        acc = acc + z[i].conjugate() * z[i]
    return acc, z[0].conjugate()


cdef int by_value(const void *a, const void *b) noexcept nogil:
    cdef double x = (<const double *> a)[0], y = (<const double *> b)[0]
    return (x > y) - (x < y)


def row_medians(double[:, ::1] a):
    cdef Py_ssize_t i, k, n = a.shape[0], m = a.shape[1]
    out = np.empty(n)
    cdef double[::1] o = out
    cdef double *buf
    with nogil, parallel(num_threads=3):
        buf = <double *> malloc(m * sizeof(double))
        for i in prange(n, schedule="dynamic"):
            for k in range(m):
                buf[k] = a[i, k]
            qsort(buf, m, sizeof(double), by_value)
            o[i] = buf[m // 2] if m % 2 else 0.5 * (buf[m // 2 - 1] + buf[m // 2])
        free(buf)
    return out
