# expect-opencl: yes
# signbit() is C's type-generic macro: Cython calls it on a float as a float,
# and gcc's x86-64 code gives INT_MIN (the sign bit in place) for a negative
# float where a double gives 1. cyocl gave 1 for both (it widened the float),
# and OpenCL's signbit is 1; now INT_MIN for a float everywhere, as Cython's
# scalar (not vectorized) code. The scattered store keeps gcc from
# vectorizing the loop in Cython's build (its vector code gives 1).
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.math cimport signbit


def sb_scatter(float[::1] a, double[::1] b, long[::1] idx, long[::1] out, long[::1] outd):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[idx[i]] = signbit(a[i])
        outd[idx[i]] = signbit(b[i]) * 7


def sb_scalar(float y, double x):
    cdef int fb = signbit(y)
    cdef int db = signbit(x)
    return fb, db, signbit(y), signbit(y) != 0
