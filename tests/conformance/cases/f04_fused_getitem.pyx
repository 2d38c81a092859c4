# A fused def/cpdef function indexed from Python, as Cython's FusedFunction:
# f["double"], f[cython.double], f[float] (a type: its __name__), a tuple or
# "a|b" for several fused types; __signatures__; KeyError when none matches.
cimport cython
cimport numpy as cnp
from cython.parallel import prange

ctypedef fused index_t:
    int
    long


def twice(cython.floating x):
    return x * 2


cpdef double thrice(cython.floating x):
    return x * 3


def scale(cython.floating[:] a, cython.floating s, index_t stop):
    cdef index_t i
    for i in prange(stop, nogil=True):
        a[i] = a[i] * s
    return stop


def first(cnp.ndarray[cython.floating, ndim=1] a):
    return a[0]


def inside(double x):
    # inside the module, f[...] of a def function is Python's subscript
    return twice["float"](x), twice["double"](x)


F = twice["float"](1.1)
