# expect-error: 8:17 an assignment expression (':=') inside a parallel region is not supported by cyocl
# cyocl-limit: an assignment expression in a prange body (Cython makes t lastprivate)
from cython.parallel import prange
def f(double[:] a):
    cdef Py_ssize_t i
    cdef double t
    for i in prange(a.shape[0], nogil=True):
        a[i] = (t := a[i] * 2) + 1
