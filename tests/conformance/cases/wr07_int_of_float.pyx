# expect-opencl: yes
# int() of a C float is a Python int in Cython (PyLong_FromDouble): exact
# beyond 64 bits, ValueError for NaN, OverflowError for an infinity; only
# where it goes straight into a C integer is it C's cast. cyocl cast it to a
# C long everywhere: int(1e20) gave -9223372036854775808 with no error.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def as_object(double x, float y):
    return int(x), int(y), int(x) + 1, int(x * 1e10)


def into_c(double x):
    cdef long k = int(x)
    return k


def kernel(const double[::1] a, long[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = int(a[i])
