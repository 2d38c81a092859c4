# The tiled GPU schedule (ir/plan.c, PLAN_TILE2D) on the shapes users write:
# a prange over rows, an independent range() over columns, a reduction loop
# over k — with bounds checks or without, strided and transposed views, a
# pre that continues, a post with a condition, lastprivates read after the
# loop, and views that overlap (the runtime then keeps the loop serial).
# plan_tiles_check.py forces the GPU plans onto any device (CYOCL_PLAN=gpu)
# and wants every result bit for bit equal to Cython's order of operations.
# cython: boundscheck=False, wraparound=False
cimport cython
from cython.parallel import prange

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

def relu_layer(double[:, ::1] x, double[:, ::1] w, double[::1] bias, int[::1] keep, double[:, ::1] out):
    """out = relu(x @ w + bias) where keep[j], two sums per element"""
    cdef Py_ssize_t i, j, k
    cdef double s, t
    for i in prange(x.shape[0], nogil=True):
        for j in range(w.shape[1]):
            if keep[j] == 0:
                continue
            s = bias[j]
            t = 1.0
            for k in range(x.shape[1]):
                s = s + x[i, k] * w[k, j]
                t = t * (1.0 + w[k, j] * 0.001)
            if s > 0:
                out[i, j] = s * t
            else:
                out[i, j] = 0.0

@cython.boundscheck(True)
@cython.wraparound(True)
def matmul_checked(float[:, ::1] a, float[:, ::1] b, float[:, ::1] c, Py_ssize_t kn):
    cdef Py_ssize_t i, j, k
    cdef float s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0
            for k in range(kn):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s
    return k, j, s  # live lastprivates

@cython.boundscheck(True)
@cython.wraparound(True)
def stencil_checked(double[:, ::1] u, double[:, ::1] out, int[::1] skip, Py_ssize_t d):
    """a collapsed nest without a reduction loop: on GPUs (and here, under
    CYOCL_PLAN=gpu) a 2-D grid, a work-item per (i, j) pair; a continue, a
    bounds check that fails where d > 1, a live lastprivate"""
    cdef Py_ssize_t i, j
    for i in prange(1, u.shape[0] - 1, nogil=True):
        for j in range(1, u.shape[1] - 1):
            if skip[j]:
                continue
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + d])
    return j
