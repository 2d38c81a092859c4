# expect-error: 7:18 Trying to release the GIL while it was previously released.
# A prange inside a prange body already runs without the GIL.
from cython.parallel import prange
def f(double[:, :] a):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in prange(a.shape[1], nogil=True):
            a[i, j] = 1
