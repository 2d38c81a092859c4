# An untyped range() counter is a C integer only where Cython's inference
# finds no possible overflow (MarkOverflowingArithmetic): under an
# arithmetic operator, a unary minus, abs() or an in-place operator it is a
# Python int, so products are exact and a conversion to a C long can raise.
from cython.parallel import prange


def powers(int n):
    r = []
    for k in range(n):
        r.append(k * k * k * k * k * k * k)
    return r[-1], type(k).__name__


def big_sum(int n):
    cdef long t = 0
    for i in range(n):
        t = t + i * 1000000007
    return t


def indexed(double[:] a):
    cdef double s = 0
    for i in range(a.shape[0]):
        s += a[i]               # only an index: a C counter
    return s, i


def negated(int n):
    out = []
    for i in range(n):
        out.append(-i)
    return out


def in_prange(double[:, :] a, double[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            out[i] += a[i, j]   # only an index: C, as it must be without the GIL
    return out
