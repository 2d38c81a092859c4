# Cython's for-from loops, as older files write them: C's loop (bounds and
# step taken once, the variable holds the first value that failed the test
# after a loop that ends without break), counting up or down, with `by`,
# `continue`, `break` and `else`; inside cdef nogil functions called from a
# prange and inside a prange body (natively and in OpenCL kernels); an
# untyped counter that Cython keeps a Python int.  Also `c += obj` on a C
# variable (Python's addition, converted back).
# expect-opencl: yes
from cython.parallel import prange


def up(int n):
    cdef int i, s = 0
    for i from 0 <= i < n:
        s += i
    return i, s


def up_by(int n):
    cdef int i, s = 0
    for i from 0 < i <= n by 3:
        s += i
        if i == 7:
            continue
        s += 1
    return i, s


def down_by(int n):
    cdef long i = 99
    cdef long s = 0
    for i from n > i >= 0 by 2:
        s = s * 3 + i
    return i, s


def with_else(int n, int stop_at):
    cdef int i
    cdef int s = 0
    for i from 0 <= i < n:
        if i == stop_at:
            break
        s += i
    else:
        s = -s
    return i, s


def untyped(int n):
    t = 0
    for i from 0 <= i < n:
        t = t + i * 10000000000000 * 1000000
    return i, t


cdef void fill_column(double[:, :] x, long nrow, long column) noexcept nogil:
    cdef long long row
    for row from 0 <= row < nrow by 1:
        x[row, column] = column * 0.5 + row


def columns(double[:, :] x):
    cdef int j
    cdef long nrow = x.shape[0]
    for j in prange(x.shape[1], nogil=True):
        fill_column(x, nrow, j)


def row_tails(double[:, ::1] x, double[::1] out):
    cdef Py_ssize_t i
    cdef int k
    cdef double acc
    for i in prange(x.shape[0], nogil=True):
        acc = 0
        for k from x.shape[1] > k >= i % 3 by 2:
            acc = acc * 0.5 + x[i, k]
        out[i] = acc + k


def add_object(x, y):
    cdef int s = 1
    cdef double d = 0.5
    s += x
    d *= y
    return s, d
