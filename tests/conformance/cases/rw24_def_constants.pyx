# Compile-time DEF constants, as older public kernels write them (Cython 3
# still compiles them, with a deprecation warning): ints, floats,
# expressions of earlier DEFs, negative values, a string; used as C array
# sizes, in loops without the GIL, in module-level code, and under Python
# semantics (// and % floor, / true division) when folded.
from cython.parallel import prange
import numpy as np

DEF NBINS = 8
DEF LO = -1.0
DEF HI = 1.0
DEF WIDTH = (HI - LO) / NBINS
DEF HALF = NBINS // 2
DEF NEG = -7
DEF FLOORED = NEG // 2
DEF MODDED = NEG % 3
DEF BIG = 1 << 40
DEF LABEL = "histogram"
DEF ON = True

TABLE_SIZE = NBINS * 2


def histogram(double[:] x):
    cdef long[NBINS] counts
    cdef Py_ssize_t i
    cdef int b
    for b in range(NBINS):
        counts[b] = 0
    for i in range(x.shape[0]):
        b = <int>((x[i] - LO) / WIDTH)
        if 0 <= b < NBINS:
            counts[b] += 1
    return [counts[b] for b in range(NBINS)], LABEL


def scaled_sum(double[:] x):
    cdef double s = 0
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        if ON:
            s += x[i] * WIDTH + HALF
    return s


def constants():
    return NBINS, WIDTH, HALF, NEG, FLOORED, MODDED, BIG, TABLE_SIZE, -NEG * 2
