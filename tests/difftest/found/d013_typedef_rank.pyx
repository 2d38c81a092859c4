# the typedefs rank as Cython's .pxd files declare them (tests/difftest finding, shrunk by hand)
cimport numpy as cnp
from libc.stdint cimport uint64_t, int64_t, intptr_t


def f(uint64_t[:] a, cnp.uint64_t[:] b, cnp.int64_t[:] c, Py_ssize_t k):
    cdef int64_t s = -7
    cdef intptr_t p = -7
    cdef cnp.intp_t q = -7
    a[0] = a[0] // k          # unsigned long long // Py_ssize_t: C's division
    a[1] = a[1] % k
    b[0] = b[0] // k
    c[0] = c[0] // k          # long long // Py_ssize_t: Python's floor division
    return s // <unsigned long>k, p // <size_t>k, q // <size_t>k, s % <unsigned long>k
