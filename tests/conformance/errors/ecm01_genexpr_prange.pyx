# expect-error: 6:22 generator expressions inside a parallel region are not supported
from cython.parallel import prange
def f(double[:, :] a, int[:] out):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        out[i] = any(a[i, j] > 0 for j in range(a.shape[1]))
