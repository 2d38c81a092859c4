# Regions the OpenCL runtime must hand back exactly as the native backend
# computes them (runtime/launch.c): a prange break (index after the loop),
# reductions with -, ^, * and float +, lastprivates, kernel errors mapped to
# Python exceptions, a view the kernel only writes, n == 0.
# cython: boundscheck=True, wraparound=False
from cython.parallel import prange

def first_over(double[:] x, double lim):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        if x[i] > lim:
            break
    return i

def floordiv(long[:] a, long d):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] // d

def sub_sum(int[:] a):
    cdef Py_ssize_t i
    cdef int s = 5
    for i in prange(a.shape[0], nogil=True):
        s -= a[i]
    return s

def xor_all(int[:] a):
    cdef Py_ssize_t i
    cdef unsigned int x = 12345
    for i in prange(a.shape[0], nogil=True):
        x ^= <unsigned int>a[i]
    return x

def prod(long[:] a):
    cdef Py_ssize_t i
    cdef long p = 3
    for i in prange(a.shape[0], nogil=True):
        p *= a[i]
    return p

def fsum(float[:] a):
    cdef Py_ssize_t i
    cdef float f = 1.5
    for i in prange(a.shape[0], nogil=True):
        f += a[i]
    return f

def last_scaled(double[:] a, double[:] out, double k):
    cdef Py_ssize_t i
    cdef double t = -1.0
    for i in prange(1, a.shape[0], 2, nogil=True):
        t = a[i] * k
        out[i] = t
    return i, t

def gather(double[:] a, long[:] idx, double[:] out):
    cdef Py_ssize_t i
    for i in prange(idx.shape[0], nogil=True):
        out[i] = a[idx[i]]

def rowsum(double[:, :] a, double[:] out):
    # a loop in the body: the trace's work is n * (1 + its trip count)
    cdef Py_ssize_t i, j
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        s = 0
        for j in range(a.shape[1]):
            s = s + a[i, j]
        out[i] = s
