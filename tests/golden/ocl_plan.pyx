# Golden (OpenCL backend): the tiled GPU schedule of ir/plan.c
# (PLAN_TILE2D) — cyk_N_tiled beside the 1-D kernels — for a matrix product
# over strided views, a layer with a bias (pre) and a cdef function (post),
# bounds checks with a pre that continues and live lastprivates; and the
# nests it leaves to the 1-D schedule: an element read in the k-loop that
# depends on both i and j, k-bounds that depend on i, a division that may
# raise in the updates.
# cython: boundscheck=False, wraparound=False
cimport cython
from cython.parallel import prange
from libc.math cimport exp

@cython.cdivision(True)
cdef inline double sigmoid(double x) nogil:
    return 1.0 / (1.0 + exp(-x))

def matmul(double[:, :] a, double[:, :] b, double[:, :] c):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s

def sigmoid_layer(double[:, ::1] x, double[:, ::1] w, double[::1] bias, double[:, ::1] out):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(x.shape[0], nogil=True):
        for j in range(w.shape[1]):
            s = bias[j]
            for k in range(x.shape[1]):
                s = s + x[i, k] * w[k, j]
            out[i, j] = sigmoid(s)

@cython.boundscheck(True)
@cython.wraparound(True)
def checked(float[:, ::1] a, float[:, ::1] b, int[::1] keep, float[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef float s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            if keep[j] == 0:
                continue
            s = 1
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s
    return j, k, s

def scaled(double[:, ::1] a, double[:, ::1] b, double[:, ::1] d, double[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j] * d[i, j]
            c[i, j] = s

def lower(double[:, ::1] a, double[:, ::1] b, double[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(i):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s

def ratio(double[:, ::1] a, double[:, ::1] b, double[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s = s + a[i, k] / b[k, j]
            c[i, j] = s
