# expect-opencl: yes
# range() loops that count an unsigned variable down to a stop within one
# step of 0, as code with size_t counters writes them: Cython shifts the
# loop by the step, so range(n - 1, -1, -1) runs n times (the stop -1,
# converted to size_t, would otherwise end it at once); natively and in a
# prange body that an OpenCL kernel runs.
from cython.parallel import prange
import numpy as np


def horner(double[:] coef, double x):
    cdef size_t i, n = coef.shape[0]
    cdef double acc = 0
    for i in range(n - 1, -1, -1):
        acc = acc * x + coef[i]
    return acc, i


def small_types(unsigned char n, unsigned int m):
    cdef unsigned char c
    cdef unsigned int u
    cdef long a = 0, b = 0
    for c in range(n, -1, -1):
        a = a * 2 + c
    for u in range(m, 0, -2):
        b = b * 3 + u
    return a, b, c, u


def suffix_sums(double[:, ::1] x):
    cdef Py_ssize_t r
    cdef size_t j, m = x.shape[1]
    cdef double s
    out = np.empty_like(np.asarray(x))
    cdef double[:, ::1] o = out
    for r in prange(x.shape[0], nogil=True):
        s = 0
        for j in range(m - 1, -1, -1):
            s = s + x[r, j]
            o[r, j] = s
    return out
