# Fused types: one C function per specialisation, the def's dispatcher
# (per fused type its first argument, then the table of specialisations).
cimport cython
from cython.parallel import prange

ctypedef fused real_t:
    float
    double

cdef inline real_t twice(real_t x) noexcept nogil:
    return x + x

def scale(real_t[::1] a, real_t s=2):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = twice(a[i]) * s

cpdef cython.integral pick(cython.integral k, cython.floating x):
    if cython.floating is float:
        return k
    return k + 1
