# Golden (OpenCL backend): expressions and types in kernels — contiguous,
# Fortran-ordered and strided views, shape/strides, integer and float
# types, libc.math (double and float variants), constants, min/max/abs,
# conditional expressions and short-circuit operators whose right side
# needs checks of its own.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.math cimport sqrt, sqrtf, exp, expf, fabs, floor, pow, M_PI, isnan, lround, INFINITY

def scale_f(float[:, ::1] a, float[::1, :] b, float s):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            a[i, j] = sqrtf(a[i, j]) * s + b[i, j] * <float>M_PI + expf(-1.5)
    return j  # a live lastprivate

def math_d(double[:] x, double[:] out, long[:] r, int[:] nan):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = sqrt(fabs(x[i])) + exp(x[i]) * M_PI - floor(x[i]) + pow(x[i], 3.0)
        r[i] = lround(x[i])
        nan[i] = isnan(x[i])
        if out[i] > INFINITY:
            out[i] = 0

def minmax(double[:] x, long[:] v, unsigned char[:] u, double lo, double hi):
    cdef Py_ssize_t i
    cdef long k
    for i in prange(x.shape[0], nogil=True):
        x[i] = min(max(x[i], lo), hi) + abs(x[i] - 1.0)
        k = v[i]
        v[i] = min(k, 10) + max(abs(k), 3)
        u[i] = min(u[i], 200) if k > 0 else <unsigned char>abs(<int>u[i] - 5)
    return k  # a live lastprivate

def shapes(double[:, :, :] a, Py_ssize_t[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a.shape[1] * a.shape[2] + a.strides[0] + a.strides[2] + a.ndim + sizeof(double)

def shortcircuit(double[:] a, long[:] idx, double[:] out):
    cdef Py_ssize_t i
    cdef bint ok
    for i in prange(a.shape[0], nogil=True):
        ok = idx[i] > 0 and a[idx[i]] > 0.0
        out[i] = a[idx[i]] if idx[i] >= 0 else -1.0
        if ok or (a[i] != 0 and 1.0 / a[i] > 2.0):
            out[i] = 1.0
    return ok  # a live lastprivate

def unsigned_index(double[:] a, size_t[:] idx, double[:] out):
    cdef Py_ssize_t i
    cdef unsigned int u
    for i in prange(a.shape[0], nogil=True):
        u = <unsigned int>idx[i]
        out[i] = a[idx[i]] + a[u] + a[3]
    return u  # a live lastprivate

def float_conditions(double[:] a, double d):
    """a floating condition of ?: (OpenCL takes integer ones only)"""
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = 1.0 if d else (2.0 if a[i] else 3.0)
