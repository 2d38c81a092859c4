# The native blocked schedule (ir/plan.c, PLAN_BLOCK: blocks of rows x
# columns x k, a tile of accumulators in registers) on the shapes users
# write, each of which native_block_check.py compares bit for bit with the
# same file built by Cython 3 + OpenMP: strided, transposed and reversed
# operands, float32, integers, two accumulators, a cdef inline nogil helper
# with libc.math in post, a prange with a start and a step, lastprivates read
# after the loop, wraparound on, and the output passed as an input (the
# plain loop then keeps Cython's order).
# cython: boundscheck=False, wraparound=False
cimport cython
from cython.parallel import prange
from libc.math cimport exp

def matmul(double[:, :] a, double[:, :] b, double[:, :] c):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s

def matmul_f32(float[:, ::1] a, float[:, ::1] b, float[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef float s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s

def matmul_long(long[:, ::1] a, long[:, :] b, long[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef long s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 1
            for k in range(a.shape[1]):
                s = s + (a[i, k] * b[k, j] - k)
            c[i, j] = s * 3

@cython.cdivision(True)
cdef inline double sigmoid(double x) nogil:
    return 1.0 / (1.0 + exp(-x))

def sigmoid_layer(double[:, ::1] x, double[:, ::1] w, double[::1] bias, double[:, ::1] out):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(x.shape[0], nogil=True):
        for j in range(w.shape[1]):
            s = bias[j]
            for k in range(x.shape[1]):
                s = s + x[i, k] * w[k, j]
            out[i, j] = sigmoid(s)

def two_sums(double[:, ::1] a, double[:, ::1] b, double[:, ::1] c):
    """two accumulators, a post with a condition and a scalar of its own;
    returns the lastprivates of the last element"""
    cdef Py_ssize_t i, j, k
    cdef double s, t, u
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            t = 1.0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j]
                t = t * (1.0 + a[i, k] * 0.01)
            u = s - t
            if u > 0:
                c[i, j] = u
            else:
                c[i, j] = s * 0.5
    return s, t, u, i, j, k

def stepped(double[:, ::1] a, double[:, ::1] b, double[:, ::1] c, int start, int step):
    """a prange with a start and a step, j from 1, an int index"""
    cdef int i
    cdef Py_ssize_t j, k
    cdef double s
    for i in prange(start, a.shape[0], step, nogil=True):
        for j in range(1, b.shape[1]):
            s = c[i, j]
            for k in range(2, a.shape[1]):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s
    return i, j, k, s

@cython.wraparound(True)
def wrapped(double[:, ::1] a, double[:, ::1] b, double[:, ::1] c):
    """b[k, j - 1]: column -1 is the last one"""
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j - 1]
            c[i, j] = s

@cython.boundscheck(True)
@cython.wraparound(True)
def checked(double[:, ::1] a, double[:, :] b, double[:, ::1] c, int n, int m, int kk):
    """bounds checks on: the blocked code runs where a check before it
    proves every index in range, else the plain loop raises as Cython does"""
    cdef int i, j, k
    cdef double s
    for i in prange(n, nogil=True):
        for j in range(1, m):
            s = c[i, j]
            for k in range(kk):
                s = s + a[i + 1, k] * b[k, j + 1] * b[2, 0]
            c[i, j] = s
