# expect-opencl: yes
# A prange variable assigned only in some iterations is lastprivate and, as
# Cython declares it, firstprivate too: where no iteration assigns it, it
# keeps the value from before the loop (natively and on an OpenCL device),
# never an uninitialised private copy.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def first_negative_seen(double[::1] v):
    cdef Py_ssize_t i
    cdef Py_ssize_t at = -7
    cdef double seen = 2.5
    for i in prange(v.shape[0], nogil=True):
        if v[i] < 0:
            at = i
            seen = v[i]
    return at, seen


def rows_marked(double[:, ::1] m, double cut):
    cdef Py_ssize_t i, j
    cdef long row = -3
    cdef int col = 11
    for i in prange(m.shape[0], nogil=True):
        for j in range(m.shape[1]):
            if m[i, j] > cut:
                row = i
                col = <int>j
    return row, col
