# Serial loops inside a prange keep their serial meaning whatever views the
# caller passes (DESIGN §9): the OpenCL kernel that runs the (i, j) pairs of
# a collapsed nest in parallel is used only when the views it writes cannot
# overlap the others; shift(a, a) and shift(b[:-1], b[1:]) take the kernel
# that keeps j serial.  Valid Cython: the same file gives Cython's results.
from cython.parallel import prange


def shift(double[:] x, double[:] y):
    cdef Py_ssize_t i, j, n = x.shape[0]
    for i in prange(1, nogil=True):
        for j in range(1, n):
            y[j] = x[j - 1] + 1.0


def shift2d(double[:, :] x, double[:, :] y):
    cdef Py_ssize_t i, j
    for i in prange(x.shape[0], nogil=True):
        for j in range(1, x.shape[1]):
            y[i, j] = x[i, j - 1] + 1.0


def scale_into(float[:, ::1] src, float[:, ::1] dst, float k):
    # independent j iterations: collapsed for distinct arrays, and for
    # dst = src too (each element is read where it is written)
    cdef Py_ssize_t i, j
    for i in prange(src.shape[0], nogil=True):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j] * k


def rows_from(long[:, :] a, long[:, :] out, Py_ssize_t off):
    # out[i, j] = a[i, j + off]: overlapping when out is a shifted view of a
    cdef Py_ssize_t i, j
    for i in prange(out.shape[0], nogil=True):
        for j in range(out.shape[1]):
            out[i, j] = a[i, j + off] * 2 + 1
