# cyocl-extension: element-wise slice expressions with numpy's semantics —
# extent-1 axes of operands stretch, operands sharing memory with the
# target read as if copied first — checked against numpy by
# slice_numpy_check.py on both implementations.
from libc.math cimport sqrt
from cython.parallel import prange

def bcast2(double[:, :] c, double[:, :] a, double[:, :] b, double s):
    c[:, :] = a[:, :] * b[:, :] + s

def bcast_contig(float[:, ::1] c, float[:, ::1] a, float[::1] r):
    c[:, :] = a[:, :] - r[:]                  # r may have extent 1

def bcast_fortran(double[::1, :] c, double[::1, :] a, double[:, :] b):
    c[:, :] = sqrt(a[:, :]) + b[:, :]

def bcast3(long[:, :, :] c, long[:, :, ::1] a, long[:] v):
    c[:, :, :] = a[:, :, :] * 2 + v[:]

def bcast_nogil(double[:, :] c, double[:, ::1] a, double[:, :] b):
    with nogil:
        c[:, :] = a[:, :] / b[:, :]

def bcast_inplace(double[:, :] c, double[:, ::1] col):
    c[:, :] += col[:, :]

def bcast_sum(double[:, :] a, double[:, ::1] b):
    return sum(a[:, :] * b[:, :])

def bcast_sum_int(int[:] a, int[:, :] b):
    return sum(a[:] - b[:, :])

def shift_right(double[:] a):
    a[1:] = a[:-1] + 1

def shift_left(double[:] a):
    a[:-1] = a[1:] * 2

def reverse(double[::1] a):
    a[::-1] = a[:] * 2

def transpose(double[:, :] x):
    x[:, :] = x[:, :].T

def transpose_c(double[:, ::1] x):
    x[:, :] = x.T + 1

def transpose_f(double[::1, :] x):
    x[:, :] = x[:, :].T * 3

def shift2(double[:, :] x):
    x[1:, 1:] = x[:-1, :-1] + x[1:, 1:]

def same(double[:] a):
    a[:] = a[:] * 2 + a

def interleave(double[:] a):
    a[::2] = a[1::2]

def first_row(double[:, :] x):
    x[:, :] = x[:1, :] * 2              # overlaps and stretches

def shift_nogil(int[:] a):
    with nogil:
        a[2:] = a[:-2] - a[2:]

def shift_aug(double[:] a):
    a[1:] += a[:-1]

def in_prange(double[:, ::1] m, double[:, ::1] r):
    """in a prange body too (per iteration, natively): r[0, :] may stretch"""
    cdef Py_ssize_t i
    for i in prange(m.shape[0], nogil=True):
        m[i, :] = m[i, :] + r[0, :]

def in_prange_overlap(double[:, ::1] m):
    cdef Py_ssize_t i
    for i in prange(m.shape[0], nogil=True):
        m[i, 1:] = m[i, :-1] * 2
        m[i, ::-1] = m[i, :] + 1

ctypedef fused real_t:
    float
    double

def fused_sums(real_t[:, :] a, real_t[:, :] c):
    """sum() in a fused function: its body is lowered once per
    specialisation (the second one found the first one's accumulator name)"""
    cdef Py_ssize_t i
    cdef double t = 0
    cdef double u = sum(a[:, 1:] * 2.0)
    for i in prange(a.shape[0], nogil=True):
        c[i, 1:] = a[i, :-1] * 2 + c[i, :-1]
        t += sum(a[i, :] * c[i, :])
    return u, t
