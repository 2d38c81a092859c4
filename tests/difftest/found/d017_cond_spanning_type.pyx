# `a if c else b` to a C number: held in the arms' spanning type, then converted; a literal arm
# takes the destination's type; to a Python object each arm is boxed (H100 difftest finding)
cimport numpy as cnp
from cython.parallel import prange


def f(unsigned long u, cnp.intp_t x, signed char sc, unsigned short us, bint c):
    cdef double d1 = (u if c else x)
    cdef long l1 = (sc if c else us)
    cdef long l2 = (-2 if c else us)
    cdef float f1 = (u if c else x)
    return d1, l1, l2, f1, 0.25 >= (u if c else x), (sc if c else us), (-2 if c else us)


def g(unsigned long[:] a0, cnp.intp_t[:] a2):
    cdef signed char v0 = 4
    cdef Py_ssize_t i0
    for i0 in prange(1, a0.shape[0], nogil=True):
        if (0.25 >= (a0[i0] if (4 == a2[i0]) else a2[i0 - 1])):
            v0 += a2[i0 - 1]
    return v0
