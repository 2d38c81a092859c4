# expect-opencl: yes
# prange counts as Cython's C computes it, (stop - start + step -
# step/abs(step)) / step on the bounds in their own C types: with an
# unsigned index, prange(n - 1, -1, -1) over an int n runs n iterations
# (all signed: the -1 is a long), prange(n, 0, -1) over an unsigned n runs
# none (0 - n is unsigned arithmetic), and the index is converted from
# start + step * k as Cython converts it.
from cython.parallel import prange


def down_int(int n, long[:] out):
    cdef unsigned int i
    cdef int c = 0
    for i in prange(n - 1, -1, -1, nogil=True):
        out[i] = 10 * i + 1
        c += 1
    return c


def down_unsigned(unsigned int n, long[:] out):
    cdef unsigned int i = 77
    cdef int c = 0
    for i in prange(n, 0, -1, nogil=True):
        out[i] = 10 * i + 2
        c += 1
    return c, i


def down_size_t(Py_ssize_t n, long[:] out):
    cdef size_t i
    cdef int c = 0
    for i in prange(n - 1, -1, -2, nogil=True):
        out[i] = 10 * i + 3
        c += 1
    return c


def down_signed(int n, long[:] out):
    cdef int i
    cdef int c = 0
    for i in prange(n - 1, -1, -1, nogil=True):
        out[i] = 10 * i + 4
        c += 1
    return c, i


def up_unsigned(unsigned int a, unsigned int b, long[:] out):
    cdef unsigned int i
    cdef int c = 0
    for i in prange(a, b, 2, nogil=True):
        out[i] = 10 * i + 5
        c += 1
    return c, i


def step_var(unsigned int a, long b, long s, long[:] out):
    cdef unsigned int i
    cdef int c = 0
    for i in prange(a, b, s, nogil=True):
        out[i] = 10 * i + 6
        c += 1
    return c


# a prange nested in a prange runs serially, with the same count
def nested(unsigned int n, int m, long[:, :] out):
    cdef unsigned int j
    cdef int i, c = 0
    for i in prange(m, nogil=True):
        for j in prange(n, 0, -1):
            out[i, j] = 1
            c += 1
    return c


def nested_int(int n, int m, long[:, :] out):
    cdef unsigned int j
    cdef int i, c = 0
    for i in prange(m, nogil=True):
        for j in prange(n - 1, -1, -1):
            out[i, j] = 10 * j + i
            c += 1
    return c
