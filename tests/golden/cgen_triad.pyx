# Golden (C backend): an element-wise prange over contiguous and strided
# views, with bounds checks off: the loop body is plain pointer arithmetic
# on hoisted thread-local data pointers.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

def triad(double[::1] a, double[::1] b, double[::1] c, double s):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = b[i] + s * c[i]

def scale(float[:, :] x, float k):
    cdef Py_ssize_t i, j
    for i in prange(x.shape[0], nogil=True, schedule='static'):
        for j in range(x.shape[1]):
            x[i, j] = x[i, j] * k
