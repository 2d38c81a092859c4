# Names as older and pure-mode files spell them: `cimport *` of libc.math,
# `import *` of cython.parallel, the constants of libc.limits, libc.float and
# RAND_MAX, xrange, `from cython.cimports.libc.stdlib import ...` and
# cython.NULL.  INT_MAX and DBL_MAX reach OpenCL kernels; RAND_MAX keeps its
# region native.
# cython: boundscheck=False, wraparound=False
# expect-opencl: yes
from libc.math cimport *
from libc.float cimport DBL_MAX, FLT_EPSILON, DBL_EPSILON
from libc.limits cimport INT_MAX, INT_MIN, LLONG_MAX
from libc.stdlib cimport rand, srand, RAND_MAX
from cython.parallel import *
from cython.cimports.libc.stdlib import malloc, free
import cython


def norms(double[:, ::1] x, double[::1] out):
    cdef Py_ssize_t i, j
    cdef double s
    for i in prange(x.shape[0], nogil=True):
        s = 0
        for j in xrange(x.shape[1]):
            s = s + x[i, j] * x[i, j]
        out[i] = sqrt(s) + floor(M_PI)


def row_min(double[:, ::1] x, double[::1] out):
    cdef Py_ssize_t i, j
    cdef double m
    for i in prange(x.shape[0], nogil=True):
        m = DBL_MAX
        for j in range(x.shape[1]):
            if x[i, j] < m:
                m = x[i, j]
        out[i] = m


def add_saturated(int[::1] v, int k, int[::1] out):
    cdef Py_ssize_t i
    for i in prange(v.shape[0], nogil=True):
        if v[i] > INT_MAX - k:
            out[i] = INT_MAX
        else:
            out[i] = v[i] + k
    return INT_MIN, LLONG_MAX, FLT_EPSILON, DBL_EPSILON


def uniform(int n, unsigned int seed):
    cdef int k
    cdef double *buf = <double *> malloc(n * sizeof(double))
    if buf == cython.NULL:
        raise MemoryError()
    srand(seed)
    for k in range(n):
        buf[k] = rand() / (RAND_MAX + 1.0)
    res = [buf[k] for k in range(n)]
    free(buf)
    return res, RAND_MAX


def scaled_noise(double[::1] out, unsigned int seed):
    # rand() and RAND_MAX keep this region native; one thread keeps rand()'s order
    cdef Py_ssize_t i
    srand(seed)
    for i in prange(out.shape[0], nogil=True, num_threads=1):
        out[i] = out[i] * (<double> rand() / RAND_MAX)
