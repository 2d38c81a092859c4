# distutils: language = c++
# C++'s bool from libcpp, as files built as C++ declare flags: a C value
# that is 0 or 1, tested and converted to a Python bool as bint is.
from libcpp cimport bool
from cython.parallel import prange


def any_above(double[:] x, double limit):
    cdef bool found = False
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        if x[i] > limit:
            found = True
    return found, found == False


def mark(double[:] x, double limit, unsigned char[:] out):
    cdef Py_ssize_t i
    cdef bool hit
    for i in prange(x.shape[0], nogil=True):
        hit = x[i] > limit
        out[i] = hit
