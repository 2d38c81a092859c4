# expect-warning: 19:19 signbit() of a float used as a number
# expect-warning: 20:10 signbit() of a float used as a number
# expect-warning: 21:12 signbit() of a float used as a number
# signbit() is C's type-generic macro: for a negative float gcc's code gives
# INT_MIN (or 1 where it vectorized the loop), for a double 1. Used as a
# number (not a truth value) the value depends on the compiler: a warning;
# tested as a truth value (if, == 0, != 0, a bint) or of a double: none.
from libc.math cimport signbit


def f(float y, double x, float[::1] a, long[::1] out):
    cdef bint t = signbit(y)
    cdef int k = signbit(x) * 2
    if signbit(y) or signbit(y) != 0 or 0 == signbit(y):
        k += 1
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        out[i] = signbit(x)
        out[i] += signbit(a[i])
    k += signbit(y) * 3
    return signbit(y) < 0, signbit(y), t, k
