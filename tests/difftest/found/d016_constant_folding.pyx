# Cython folds integer operations on literals with Python semantics, cdivision(True) or not
# (tests/difftest finding d001_noocl_return, shrunk by hand)
cimport cython
@cython.cdivision(True)
def f(long k):
    cdef long a = 5 // (-2)
    cdef long b = -7 % 3
    cdef double c = 5 / 2
    cdef long d = (3 + 4) // (-2)
    cdef long e = (k - k + 5) // (-2)
    cdef double g = 7.5 // -2
    cdef long h = -7 // 2 * 3
    return (a, b, c, d, e, g, h, 5 // -2, -7 % 3, 5 / -2, 2 ** -1, -(5 // 2), 7 % -3)
