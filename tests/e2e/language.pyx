# cython: language_level=3
# Broader language coverage: cdef/cpdef calls with defaults and keywords,
# ctypedef, Python semantics of // and %, slicing with steps, break and
# return inside prange, tuple unpacking, safe type inference, while/else,
# exceptions crossing cdef functions.
cimport cython
from cython.parallel import prange
from libc.math cimport sqrt, floor, M_PI
import numpy as np

ctypedef double real_t

cdef real_t scale(real_t x, real_t k=2.0, real_t b=0.0) noexcept nogil:
    return k * x + b

cpdef long ipow(long base, int e):
    cdef long r = 1
    while e > 0:
        r *= base
        e -= 1
    else:
        r += 0
    return r

cdef int checked(double[:] a, Py_ssize_t i) except -1:
    if a[i] < 0:
        raise ValueError("negative at %d" % i)
    return 0

def call_checked(double[:] a):
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        checked(a, i)
    return True

def py_divmod(long[:] a, long d, long[:] q, long[:] r, double[:] fa, double fd, double[:] fq, double[:] fr):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        q[i] = a[i] // d
        r[i] = a[i] % d
        fq[i] = fa[i] // fd
        fr[i] = fa[i] % fd

def apply_scale(double[:] x, double[:] out):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = scale(x[i]) + scale(x[i], 2.0, 1.0) + scale(x[i], 3.0, 0.5)

def every_other_row_sum(double[:, :] a):
    cdef double[:, :] sub = a[::2, 1:]
    cdef Py_ssize_t i, j
    cdef double s = 0
    for i in prange(sub.shape[0], nogil=True):
        for j in range(sub.shape[1]):
            s += sub[i, j]
    return s, sub.shape[0], sub.shape[1]

def find_first(double[:] a, double v):
    """break inside prange: the index holding v (v must occur: a lastprivate
    variable no iteration assigned is undefined after the loop, as in Cython)."""
    cdef Py_ssize_t i, found = -1
    for i in prange(a.shape[0], nogil=True):
        if a[i] == v:
            found = i
            break
    return found

cdef double first_neg(double[:] a) noexcept nogil:
    cdef Py_ssize_t i
    for i in prange(a.shape[0]):
        if a[i] < 0:
            return a[i]
    return 0.0

def call_first_neg(double[:] a):
    return first_neg(a)

def stats(double[:] a):
    n = a.shape[0]
    total = 0.0
    for i in range(n):
        total += a[i]
    mean = total / n
    var = 0.0
    for i in range(n):
        var += (a[i] - mean) ** 2
    lo, hi = min(a[0], a[n - 1]), max(a[0], a[n - 1])
    return mean, sqrt(var / n), lo, hi, floor(M_PI)

def swap_pairs(x, y):
    x, y = y, x
    a, (b, c) = 1, (2, 3)
    return x, y, a + b + c

@cython.boundscheck(False)
@cython.wraparound(False)
def unchecked_sum(float[:, ::1] m):
    cdef Py_ssize_t i, j
    cdef double s = 0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            s += m[i, j]
    return s

def int_ops(long a, long b):
    return a // b, a % b, a / b, -a // b, a ** 2, abs(-a), a << 2, a >> 1, a & b, a | b, a ^ b

@cython.boundscheck(False)
def wrap_only(double[:] a):
    return a[-1] + a[-2]

def mixed_reductions(long[:] v):
    cdef Py_ssize_t i
    cdef long s = 100, x = 0, p = 1
    cdef double f = 0.5
    for i in prange(v.shape[0], nogil=True):
        s -= v[i]
        x ^= v[i]
        p *= 1 + (v[i] & 1)
        f += v[i] * 0.5
    return s, x, p, f

cdef int n_calls = 0

cdef double counted(double v) noexcept nogil:
    global n_calls
    n_calls += 1
    return v

def value_and_or(double a, double b, long k):
    # Python's and/or on C numbers give an operand; the left one is evaluated once
    # (mixed types in a C context: the result is a double; boxed directly,
    # each operand is boxed as it is: value_and_or_boxed)
    global n_calls
    n_calls = 0
    cdef double ka = k and a, chain = (k or 0) and (a or b) and 7.5
    r = (counted(a) or b, counted(a) and b, ka, chain)
    return r, n_calls


# min()/max() and `x if c else y` on C numbers of different types (H100
# difftest finding): min's value has Cython's spanning type, without
# promotion to int (min(signed char -2, unsigned short) is 65534); a
# conditional expression converts each arm to where its value goes.
def spans(signed char a, unsigned short b, int c, unsigned int d, long e, float f):
    cdef bint flag = c > 0
    return (min(a, b), max(a, b), (a if flag else b), (b if flag else a), min(c, d), max(c, d),
            min(a, e), min(a, f), min(d, a, b), (c if flag else d), (a if not flag else e))

def spans_prange(signed char[:] a, unsigned short[:] b, int[:] out):
    cdef Py_ssize_t i
    cdef unsigned short u
    for i in prange(a.shape[0], nogil=True):
        if min(a[i], b[i]) < <unsigned short>9:
            out[i] = 1
        else:
            out[i] = 2
        if (a[i] if out[i] == 1 else b[i]) > 100:
            out[i] += 10
        u = (a[i] if out[i] > 5 else b[i])
        out[i] += 100 * (u > 1000)


def value_and_or_boxed(double a, long k, signed char c, unsigned short u):
    # boxed directly, Cython boxes the operand that decides as it is
    return (k and a), (k or a), (a and k), (c or u), (u and c), (c and u) + 0


# C's view of literals (H100 difftest findings d009-d011): an integer literal
# is a C int where it fits (3 | u with u unsigned is unsigned), beside a
# float a double (Cython writes e / 2 as e / 2.0); cdivision(True) makes int /
# C's division; Python's // with Py_ssize_t ranks it above long.
def float_eps():
    cdef float e = 1
    while 1 + e / 2 != 1:
        e = e / 2
    return e

def literal_types(float e, unsigned int u, int a):
    cdef float r = e / 2
    return r, (3 | u) <= -a, u < -1, (<unsigned long>2) // (-(<Py_ssize_t>a))

@cython.cdivision(True)
def cdiv(int a, int b):
    cdef double v = 1 / (a + b)
    return v, a / b


def fstrings(double x, int n, s):
    cdef double y = x * 2
    return (f"x={x} n={n:>5} y={y:.3f} {s!r} {{literal}} {n + 1} {'a' if n else 'b'} {x!s:>8}" "tail",
            f"", f"{n}", f"{[n, n]}", F"{n != 1}")


def prange_trips(int a, int b, int s):
    # an int index: the count is taken in Py_ssize_t, so that stop - start
    # may exceed INT_MAX (prange(-2**31, 2**31 - 1, 2**30) has 4 iterations)
    cdef int i
    cdef long n = 0
    for i in prange(a, b, s, nogil=True):
        n += 1
    return n


def prange_index_at(double[:] x, double[:, :] a, double[:, :] b):
    # the index from the iteration number, as host and kernel compute it:
    # a constant start 0 with a step (an int index: a cast of the sum), and
    # the range() loop collapsed with the prange, step 2 from 0 and step -1
    cdef int i
    cdef Py_ssize_t r
    cdef int c
    for i in prange(0, x.shape[0], 3, nogil=True):
        x[i] = x[i] + i
    for r in prange(a.shape[0], nogil=True):
        for c in range(0, a.shape[1], 2):
            a[r, c] = a[r, c] + r * 100 + c
    for r in prange(b.shape[0], nogil=True):
        for c in range(b.shape[1] - 1, -1, -1):
            b[r, c] = b[r, c] * 2 + c
