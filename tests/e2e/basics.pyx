# End-to-end basics, valid Cython: cdef/cpdef/def functions, a prange
# reduction, libc.math, numpy glue returning new arrays, strided views and
# Python's // and % on C integers.
# cython: boundscheck=False, wraparound=False
import numpy as np
from cython.parallel import prange
from libc.math cimport sqrt, exp, log1p

cdef inline double sq(double x) noexcept nogil:
    return x * x

cdef long fib_c(long n) noexcept nogil:
    if n < 2:
        return n
    return fib_c(n - 1) + fib_c(n - 2)

cpdef double norm(double[::1] a):
    cdef Py_ssize_t i
    cdef double s = 0.0
    for i in prange(a.shape[0], nogil=True):
        s += sq(a[i])
    return sqrt(s)

def softplus(double[::1] x):
    cdef Py_ssize_t i
    cdef Py_ssize_t n = x.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    for i in prange(n, nogil=True):
        o[i] = log1p(exp(x[i]))
    return out

def axpy(double a, double[:] x, double[:] y):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        y[i] = a * x[i] + y[i]

def int_ops(long a, long b):
    return a // b, a % b

def fib(long n):
    return fib_c(n)
