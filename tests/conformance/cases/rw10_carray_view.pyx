# A C array assigned to a typed memoryview, as real kernels index scratch
# tables through views: the view shares the array's memory (writes through
# either are seen by the other), 1-D and 2-D, and is read by a prange.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def table_lookup(int[:] idx):
    cdef unsigned short table[16]
    cdef unsigned short[:] tv = table
    cdef Py_ssize_t i
    cdef long total = 0
    tv[:] = 0
    for i in range(16):
        table[i] = <unsigned short>(i * i)
    tv[3] += 100
    for i in prange(idx.shape[0], nogil=True):
        total += tv[idx[i] % 16]
    return total, table[3], tv.shape[0]


def grid():
    cdef double g[3][4]
    cdef double[:, :] gv = g
    cdef int i, j
    for i in range(3):
        for j in range(4):
            gv[i, j] = i * 10 + j
    g[2][3] = -1
    return [[gv[i, j] for j in range(4)] for i in range(3)], gv.shape[0], gv.shape[1]
