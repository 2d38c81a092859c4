# expect-opencl: yes
# a ** b of C floats as Cython 3 computes it (cpow=False, its default):
# unless the base is surely not negative or the exponent surely an integer,
# a "soft complex" (__Pyx_c_pow_double: glibc's cpow). As an object it is a
# float, or a complex where the imaginary part is not zero ((-8.0) ** (1/3.)
# is (1+1.7320508075688772j)); inside an expression wanted as a double a
# non-zero imaginary part raises TypeError; straight into a C number it is
# pow(). cyocl computed pow() everywhere: nan with no error, and other
# last bits (cpow(2, 0.5) is 1.414213562373095, pow 1.4142135623730951).
# cython: boundscheck=False, wraparound=False
cimport cython
from cython.parallel import prange


def as_object(double a, double b):
    return a ** b


def direct(double a, double b):
    cdef double r = a ** b
    return r


def in_expr(double a, double b):
    cdef double r = a ** b + 1.0
    return r


def kernel(const double[::1] x, double p, double[::1] out, double[::1] out2):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = x[i] ** p * 2.0 + x[i] ** 2.0
        out2[i] = x[i] ** p


def plain(const double[::1] x, double[::1] out):
    # a constant base >= 0 or an integer exponent: pow(), OpenCL-eligible
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = 2.0 ** x[i] + x[i] ** 3 + x[i] ** -2.0


@cython.cpow(True)
def with_cpow(double a, double b):
    return a ** b + 1.0
