# Default argument values that are not constants: evaluated once, when the
# def runs at import (later changes of the names they use do not matter),
# for def, cpdef and cdef functions; a C-typed default reaches a prange.
from cython.parallel import prange
import numpy as np

N = 5
SCALE = 3.0
cdef int M = 7
TABLE = [1, 2, 3]


def times(x, n=N):
    return x * n


def nudge(double x, double eps=1e-9 * SCALE):
    return x + eps


def scaled(double[:] a, out=None, double s=SCALE * 2):
    cdef double[:] o
    cdef Py_ssize_t i
    if out is None:
        out = np.zeros(a.shape[0])
    o = out
    for i in prange(a.shape[0], nogil=True):
        o[i] = a[i] * s
    return out


def ints(int m=M, long q=N + 1, table=TABLE):
    return m, q, table


cpdef double cp(double x, double s=SCALE * 4):
    return x * s


cdef double cd(double x, double s=-SCALE):
    return x * s


def call_cdef(double x):
    return cd(x), cd(x, 1.0), cp(x)


def remember(x, seen=[]):
    seen.append(x)
    return len(seen)


N = 50
SCALE = 100.0
M = 70
TABLE = None
