# Python's builtin types as declared types, as real files use them:
# `def f(tuple shape, list xs)`, `cdef list out = []`, `cdef dict seen`,
# `cdef str name`, `cdef bytes raw`.  Each assignment and def argument is
# tested for exactly that type (a subclass is refused too) with Cython's
# messages; None passes; a tuple display assigned to a list is a list.
# The numbers a prange works on come out of such objects first.
# expect-opencl: yes
from cython.parallel import prange


def scale_rows(double[:, ::1] x, tuple factors):
    cdef Py_ssize_t i, j, n = x.shape[0]
    cdef double[::1] f = memoryview(bytearray(n * 8)).cast('d')
    for i in range(n):
        f[i] = factors[i % len(factors)]
    for i in prange(n, nogil=True):
        for j in range(x.shape[1]):
            x[i, j] = x[i, j] * f[i]
    return len(factors)


def collect(list xs, double limit):
    cdef list out = []
    cdef dict seen = {}
    cdef double v
    for item in xs:
        v = item
        if v > limit:
            out.append(v)
            seen[v] = seen.get(v, 0) + 1
    return out, seen


def to_list(o):
    cdef list x = o
    return x


def to_tuple(o):
    cdef tuple t
    t = o
    return t


def labels(str name, bytes raw=b"", set tags=None, frozenset fixed=frozenset()):
    cdef str s = name.upper()
    cdef list pair = [s, len(raw)]
    return s, pair, tags, fixed


cdef tuple swap(tuple p):
    return (p[1], p[0])


def swapped(o):
    return swap(o)


cdef class_name(object o):
    return type(o).__name__


def typed_return(o):
    cdef dict d = o
    return class_name(d)


def constant_tuple_to_list():
    # a tuple of constants is no list: Cython's TypeError at run time
    cdef list x = (1, 2)
    return x
