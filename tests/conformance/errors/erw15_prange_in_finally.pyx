# expect-error: 10:9 a prange or parallel() block inside a finally clause is not supported by cyocl
# cyocl-limit
# A prange inside a finally clause.
from cython.parallel import prange
def f(double[:] a):
    cdef Py_ssize_t i
    try:
        pass
    finally:
        for i in prange(a.shape[0], nogil=True):
            a[i] = 0
