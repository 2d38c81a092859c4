# expect-opencl: yes
# Fused float/double kernels: one specialisation (and one OpenCL kernel per
# prange) for each type; a def dispatches on the arrays' dtype at call time.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

ctypedef fused real_t:
    float
    double

cdef inline real_t fma3(real_t a, real_t x, real_t y) noexcept nogil:
    return a * x + y

def axpy(real_t[::1] x, real_t[::1] y, real_t a):
    # the first argument of a fused type decides: here the array's dtype
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        y[i] = fma3(a, x[i], y[i])

def dot(real_t[::1] x, real_t[::1] y):
    cdef Py_ssize_t i
    cdef double acc = 0
    for i in prange(x.shape[0], nogil=True):
        acc += <double>x[i] * y[i]
    return acc

def scaled_sum(real_t[:, ::1] m, double s):
    cdef Py_ssize_t i, j
    cdef real_t total = 0
    cdef real_t f = <real_t>s
    for i in prange(m.shape[0], nogil=True):
        for j in range(m.shape[1]):
            total += m[i, j] * f
    return total

def type_name(real_t[:] x):
    if real_t is double:
        return "double"
    elif real_t is float:
        return "float"
    return "?"

def first_twice(real_t[:] x):
    cdef real_t one = 1
    return x[0] * (one + one)

def direct(double d, float f):
    return fma3(d, d, d), fma3(f, f, f), fma3[double](2, 3, 4)

def with_default(real_t[:] x, real_t s=2, real_t t=0.5):
    # defaults convert to each specialisation's type
    return x[0] * s + t
