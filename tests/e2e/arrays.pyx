# cyocl-extension: element-wise expressions on memoryview slices (and the
# plain Cython forms among them: a[:] = scalar, a[:] = b), checked against
# numpy by arrays_check.py on both implementations.
# cython: boundscheck=False, wraparound=False
from libc.math cimport sqrt, fabs, exp
from cython.parallel import prange

ncalls = 0

def counted(double v):
    global ncalls
    ncalls += 1
    return v

def fill(double[:, :] a, double v):
    a[:, :] = v

def copy(double[:] dst, double[:] src):
    dst[:] = src

def axpy_strided(double a, double[:] x, double[:] y, double[:] out):
    out[::-1] = a * x[::2] + y[1::3]

def mixed(float[:] out, double[:] x, int[:] k, double s):
    out[:] = -x[:] * k[:] + <float>s

def select(double[:] out, double[:] x, double[:] y):
    out[:] = x[:] if s_pos(1.0) else y[:]

cdef double s_pos(double v) noexcept nogil:
    return v

def hoisted(double[:] out, double[:] x):
    """the scalar is evaluated once, not per element"""
    out[:] = x[:] * <double>counted(3.0)

def stencil(double[:, ::1] u, double[:, ::1] out):
    out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])

def sums(double[:, :] m, long[:] v):
    cdef double t = sum(m[:, :] * 2.0)
    return t, sum(v[:] * v[:]), sqrt(sum(fabs(m[0, :])))

cdef void smooth(double[:] a, double[:] b) noexcept nogil:
    a[1:-1] = 0.5 * (b[:-2] + b[2:])

def nogil_caller(double[:] a, double[:] b):
    with nogil:
        smooth(a, b)

def rows(double[:, ::1] m, double[:] out):
    """an expression inside a prange body: serial loops in the region"""
    cdef Py_ssize_t i
    for i in prange(m.shape[0], nogil=True):
        m[i, :] = m[i, :] * 2.0
        out[i] = sum(m[i, :])

def mismatch(double[:] a, double[:] b):
    a[:] = b[:] + 1.0

def mismatch_nogil(double[:] a, double[:] b):
    with nogil:
        a[:] = exp(b[:])

def shift(double[:] a):
    a[1:] = a[:-1]

def double_in_place(double[:, :] a):
    a[:, :] = a[:, :] * 2.0 + a

def relu_where(double[:] out, double[:] x, double[:] y):
    out[:] = x[:] if x[:] > 0 and not y[:] < 0 else 0.0

def inplace(double[:, :] a, double[:, :] b, double s):
    a[:, 1:] += b[:, :-1] * s
    a[::2, :] *= 2.0

def bias(double[:, :] out, double[:, :] m, double[:] b):
    out[:, :] = m[:, :] + b[:]            # b lines up with the last axis

def weighted(double[:, :] m, double[:] w):
    return sum(m[:, :] * w[:])


def empty_slice_scalar(double[:] a, double s, long k):
    # scalar parts are evaluated only when the loops have an element: the
    # loops the expression means would not evaluate 1 % s, k // 0 at all
    a[:k] += 1 % s
    return sum(a[:k] * (k // s))
