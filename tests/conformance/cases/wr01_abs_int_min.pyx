# expect-opencl: yes
# abs() of the most negative int and long is that value itself, as C with
# -fwrapv (Cython's build) gives it; an OpenCL kernel must not turn it
# positive when the result is widened.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def abs_int(int[::1] a, long long[::1] out):
    cdef Py_ssize_t i
    cdef int k
    for i in prange(a.shape[0], nogil=True):
        k = a[i]
        out[i] = abs(k)


def abs_long(long long[::1] a, double[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = abs(a[i])
