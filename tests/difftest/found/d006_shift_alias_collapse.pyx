# difftest regression target (issue 15, item 1): aliasing views + a serial
# loop inside a one-iteration prange; the OpenCL kernel collapses (i, j).
from cython.parallel import prange
def f(double[:] x, double[:] y):
    cdef Py_ssize_t i, j, n = x.shape[0]
    for i in prange(1, nogil=True):
        for j in range(1, n):
            y[j] = x[j - 1] + 1.0
