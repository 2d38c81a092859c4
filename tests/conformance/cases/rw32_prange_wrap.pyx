# expect-opencl: yes
# Signed C integer overflow inside a prange body wraps as in the modules
# Cython builds (-fwrapv), on every implementation: an OpenCL kernel must not
# fold `y + 1 > y` to true or assume a product cannot overflow.
from cython.parallel import prange
cimport cython


@cython.boundscheck(False)
@cython.wraparound(False)
def wrap_body(int[:] x, int[:] gt, int[:] prod, long long[:] big, int[:] neg, int[:] acc):
    cdef Py_ssize_t i
    cdef int y, h, k
    cdef long long z, m = 4611686018427387
    for i in prange(x.shape[0], nogil=True):
        y = x[i]
        gt[i] = (y + 1) > y
        prod[i] = y * 65537 - 3
        z = <long long> y * m
        big[i] = z * 1000 + 7
        neg[i] = -(y - 2147483647)
        h = y
        for k in range(3):
            h = h * 31 + 1000003
        h = h + y
        acc[i] = h


def wrap_sum(int[:] x):
    cdef Py_ssize_t i
    cdef int s = 0
    cdef long long t = 1
    for i in prange(x.shape[0], nogil=True):
        s += x[i] * 3
        t *= x[i]
    return s, t
