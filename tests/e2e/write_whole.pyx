# A view the kernel writes whole (every element, unconditionally) needs no
# upload (ir/nest.c's covers, runtime CYRT_WRITE_ALL); a view the kernel
# writes in part, or one that is not the whole of its memory, keeps what
# it held where the kernel does not write.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

def fill2(double[:, ::1] a, double[:, ::1] out):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            out[i, j] = 2 * a[i, j]

def fill1(double[:] a, double[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] + 1

def some(double[::1] a, double[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        if a[i] > 0:
            out[i] = a[i]

def shorter(double[::1] a, double[::1] out):
    # writes out[0 .. n-2] only: the last element keeps its value
    cdef Py_ssize_t i
    for i in prange(a.shape[0] - 1, nogil=True):
        out[i] = a[i]

def moved_j(double[:, ::1] a, double[:, ::1] out):
    # j moved before the write: only the first half of each row is written
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            j = j // 2
            out[i, j] = a[i, j]
