# expect-opencl: yes
# libc.math's classification functions as Cython's math.pxd declares them:
# isinf is an int, -1 for -inf (glibc), also in OpenCL kernels (whose isinf
# is 1); isnan, isfinite and signbit are bint (True/False as objects).
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.math cimport isinf, isnan, isfinite, signbit


def classify(double[::1] a, long[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = isinf(a[i]) * 10 + isnan(a[i]) * 100 + isfinite(a[i])


def classify_f(float[::1] a, long[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = 3 * isinf(a[i])


def as_objects(double x):
    return isinf(x), isnan(x), isfinite(x), signbit(x)
