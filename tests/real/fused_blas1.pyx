# expect-opencl: yes
"""Level-1 BLAS in float and double: one source, cython.floating."""
cimport cython
from cython.parallel import prange


@cython.boundscheck(False)
@cython.wraparound(False)
def axpy(cython.floating[::1] x, cython.floating[::1] y, double alpha):
    """y += alpha * x"""
    cdef Py_ssize_t i, n = x.shape[0]
    cdef cython.floating a = <cython.floating>alpha
    if y.shape[0] != n:
        raise ValueError("x and y differ in length")
    for i in prange(n, nogil=True, schedule="static"):
        y[i] = y[i] + a * x[i]


@cython.boundscheck(False)
@cython.wraparound(False)
def dot(cython.floating[::1] x, cython.floating[::1] y):
    cdef Py_ssize_t i, n = x.shape[0]
    cdef double acc = 0.0
    for i in prange(n, nogil=True):
        acc += <double>x[i] * <double>y[i]
    return acc


@cython.boundscheck(False)
@cython.wraparound(False)
def nrm2_sq(cython.floating[:] x):
    cdef Py_ssize_t i
    cdef cython.floating t
    cdef double acc = 0.0
    for i in prange(x.shape[0], nogil=True):
        t = x[i]
        acc += t * t
    return acc


def precision(cython.floating[:] x):
    if cython.floating is float:
        return "single"
    else:
        return "double"
