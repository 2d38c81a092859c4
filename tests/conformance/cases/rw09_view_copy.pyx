# memoryview.copy() as real kernels keep inputs intact: the copy is
# C-contiguous, holds the elements of any strided or reversed view, and
# writes to it leave the original alone; a prange then works on the copy.
# expect-opencl: yes
from cython.parallel import prange


def relabel(int[:] initial, int k):
    cdef int[:] labels = initial.copy()
    cdef Py_ssize_t i
    for i in prange(labels.shape[0], nogil=True):
        labels[i] = (labels[i] + 1) % k
    return [labels[i] for i in range(labels.shape[0])]


def centered(double[:, :] x):
    cdef double[:, ::1] y = x.copy()
    cdef Py_ssize_t i, j
    cdef double m
    for i in prange(y.shape[0], nogil=True):
        m = 0
        for j in range(y.shape[1]):
            m = m + y[i, j]
        m = m / y.shape[1]
        for j in range(y.shape[1]):
            y[i, j] = y[i, j] - m
    return [[y[i, j] for j in range(y.shape[1])] for i in range(y.shape[0])]
