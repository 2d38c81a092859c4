# Included text: constants, a helper and a Python function, as older
# packages share them between modules with `include`.
DEF MAXK = 8
cdef double EPS = 1e-12

cdef inline Py_ssize_t nearest_of(double[::1] d, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t j, best = 0
    for j in range(1, k):
        if d[j] < d[best]:
            best = j
    return best

def maxk():
    return MAXK
