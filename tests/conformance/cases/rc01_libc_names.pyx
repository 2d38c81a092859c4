# expect-opencl: yes
# Names real Cython files cimport: math.pxd's `pi` and `e` (M_PI, M_E),
# a builtin cimported from libc.math (`abs`, as scikit-image writes it),
# cpython.mem's allocators, and more of libc.string.
from cython.parallel import prange
from cpython.mem cimport PyMem_Malloc, PyMem_Realloc, PyMem_Free, PyMem_RawMalloc, PyMem_RawFree
from libc.math cimport pi, e, sin, abs
from libc.string cimport strncmp, strcpy, strlen

def phase(double[::1] out, double f):
    cdef Py_ssize_t i
    for i in prange(out.shape[0], nogil=True):
        out[i] = sin(2 * pi * f * i / out.shape[0]) * e

def absdiff(int a, int b, double x):
    return abs(a - b), abs(x)

def cumsum_grow(double[::1] a):
    # a scratch buffer from PyMem_Malloc, grown by PyMem_Realloc
    cdef Py_ssize_t n = a.shape[0], cap = 4, k
    cdef double *buf = <double *> PyMem_Malloc(cap * sizeof(double))
    cdef double *tmp
    cdef double s = 0
    if not buf:
        raise MemoryError()
    try:
        for k in range(n):
            if k == cap:
                cap *= 2
                tmp = <double *> PyMem_Realloc(buf, cap * sizeof(double))
                if not tmp:
                    raise MemoryError()
                buf = tmp
            s += a[k]
            buf[k] = s
        return [buf[k] for k in range(n)]
    finally:
        PyMem_Free(buf)

def raw_count(int n):
    cdef int *p
    cdef int k, t = 0
    with nogil:
        p = <int *> PyMem_RawMalloc(n * sizeof(int))
        for k in range(n):
            p[k] = k * k
        for k in range(n):
            t += p[k]
        PyMem_RawFree(p)
    return t

def prefix(bytes a, bytes b, int n):
    cdef char buf[32]
    strcpy(buf, a)
    return strncmp(buf, b, n) == 0, strlen(buf)
