# C's conversions where long long meets an unsigned 64-bit type, and Cython's type of the result
# (tests/difftest finding on the H100, shrunk by hand)
def f(size_t a, long long v, Py_ssize_t n, unsigned long u):
    cdef size_t r = min((-(a - <size_t>6)), (<size_t>3 + (v + n)))   # compared unsigned (C)
    cdef size_t r2 = max(-a, v)
    cdef long long w = (u + n) // 2          # Cython: a Py_ssize_t floor division
    cdef long long c = (u + n) if v > 0 else v
    return (r, r2, min(-a, v), <size_t>3 + (v + n), u + n, w, c, (-a) < v, (v + u) >> 1)
