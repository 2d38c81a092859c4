# Signed C integer overflow wraps, as in the modules Cython builds (CPython's
# CFLAGS carry -fwrapv): a product of two ints stored in an int, a hash
# accumulated in an int, a long long product beside them.
def wrap_products(int a, int b):
    cdef int c = a * b
    cdef unsigned int u = <unsigned int> a * <unsigned int> b
    cdef long long big = <long long> a * b
    return c, u, big


def int_hash(int[:] v):
    cdef int h = 17
    cdef Py_ssize_t i
    for i in range(v.shape[0]):
        h = h * 31 + v[i]
    return h


def overflows(int x):
    cdef int y = x + 1
    return y > x, y
