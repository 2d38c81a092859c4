# e2e-build-flags: --fp-contract
# The GPU plans of products built with --fp-contract (ir/plan.c): each
# update s = s + x[i, k] * w[k, j] may become one fused multiply-add, but
# every element still takes its k in increasing order from the value pre
# gave it.  layer's post calls a function, which gives doubles the planner's
# 16x8 work-items of 8x8 elements; matmul keeps the default shape.
# cython: boundscheck=False, wraparound=False, cdivision=True
from cython.parallel import prange
from libc.math cimport fabs


cdef inline double shrink(double s) nogil:
    return fabs(s) / (1.0 + fabs(s))


def layer(double[:, ::1] x, double[:, ::1] w, double[::1] bias, double[:, ::1] out):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(x.shape[0], nogil=True):
        for j in range(w.shape[1]):
            s = bias[j]
            for k in range(x.shape[1]):
                s = s + x[i, k] * w[k, j]
            out[i, j] = shrink(s)


def matmul(double[:, :] a, double[:, :] b, double[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s
