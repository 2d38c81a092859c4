# expect-opencl: yes
# Memoryview .T (Cython's transpose: axes reversed, a C-contiguous view
# becoming Fortran-contiguous), also without the GIL, of 1-D to 3-D views
# and of slices; a prange over a transposed view (its strides are the
# kernel's), element access and shapes through .T, and .T as an object.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
import numpy as np


def weighted(double[:, ::1] a):
    cdef double[:, :] t = a.T
    cdef double[::1, :] tf = a.T
    cdef double s = 0
    cdef Py_ssize_t i, j
    with nogil:
        t = a.T
    for i in prange(t.shape[0], nogil=True):
        for j in range(t.shape[1]):
            s += t[i, j] * (i + 1) - tf[i, j] * j
    return s, t.shape[0], t.shape[1], a.T[0, 1], a.T.shape[0]


def three(double[:, :, :] b):
    cdef double[:, :, :] t = b.T
    return t[3, 1, 0], t.shape[0], t.shape[2], b.T.T[1, 2, 3]


def one(double[:] v):
    return v.T[1], v.T.shape[0]


def objects(double[:, :] m):
    return np.asarray(m.T).tolist(), np.asarray(m[::2, 1:].T).tolist()
