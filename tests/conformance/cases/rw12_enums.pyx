# expect-opencl: yes
# C enums as kernels use them: named (block and one-line forms), anonymous
# (a constant for a C array's size), ctypedef'd, with a negative value; in a
# prange (an OpenCL kernel), as a def argument and converted to Python.
# Cython's typing: an enum ranks below int (c + n is an int, c < n is C's
# comparison of the enum's unsigned type), only its own enumerators
# assign to it, and a negative Python int does not convert to it.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

cdef enum Color:
    RED = 1
    GREEN
    BLUE = 10

cdef enum: NBUF = 4, NEXTRA

ctypedef enum Mode:
    FAST, SLOW = 1 << 2
    EXACT = SLOW | 1

cdef enum Sign:
    MINUS = -1
    ZERO
    PLUS


def count(int[:] a, int pick):
    cdef Color c = GREEN
    cdef Mode m = EXACT
    cdef double buf[NBUF]
    cdef Py_ssize_t i
    cdef long s = 0
    for i in prange(a.shape[0], nogil=True):
        if a[i] == RED:
            s += BLUE
        elif a[i] == c:
            s += m + NEXTRA
        elif a[i] == pick:
            s += PLUS - MINUS
    return s, sizeof(buf) // sizeof(double)


def typing(int n):
    cdef Color c = GREEN
    cdef Sign g = ZERO
    cdef long r = c + n
    c = <Color>(n * n)
    return c + n, r, RED + n, g + n, c // 3, max(RED, n), c < n, GREEN == 2, -RED


def pick(Color c, Mode m):
    cdef Color d = BLUE
    if c == d:
        return 'blue', m
    return [FAST, SLOW, EXACT, ZERO], c
