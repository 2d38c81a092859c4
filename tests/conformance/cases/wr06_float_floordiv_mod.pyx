# expect-opencl: yes
# // and % of C doubles and floats (cdivision off) as Cython writes them:
# floor(a / b), the quotient rounded in the operands' type first, and
# fmod(a, b) plus (0 or 1) * b to take b's sign (__Pyx_mod_double/_float),
# not Python's float_divmod, which cyocl used: 1.0 // 0.1 is 10.0 (Python:
# 9.0), 0.3f // -0.1f is -3.0 (in double: -4.0), 7.0 % inf is nan (7.0),
# 0.0 % -1.0 is 0.0 (-0.0), -7.0 // inf is -0.0 (-1.0), inf // 3.0 is inf.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def divmod_d(const double[::1] a, const double[::1] b, double[::1] q, double[::1] r):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def divmod_f(const float[::1] a, const float[::1] b, float[::1] q, float[::1] r):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def mixed(const double[::1] a, double[::1] out):
    cdef Py_ssize_t i
    cdef long k
    for i in prange(a.shape[0], nogil=True):
        k = i % 5 - 2
        if k == 0:
            k = 3
        out[3 * i] = a[i] // k + 7 // a[i]
        out[3 * i + 1] = a[i] % k
        out[3 * i + 2] = a[i] % -0.5


def scalar(double a, double b, float c, float d):
    cdef double q = a // b, r = a % b
    cdef float qf = c // d, rf = c % d
    q2 = a
    q2 //= b
    return q, r, qf, rf, q2
