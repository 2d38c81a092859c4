# expect-error: 12:17 assignment to attribute 'total' of a cdef class instance inside a parallel region is not supported by cyocl
# cyocl-limit: a parallel region reads the instance's attributes through locals loaded before it
from cython.parallel import prange

cdef class Acc:
    cdef double total

    def add(self, double[::1] x):
        cdef Py_ssize_t i
        for i in prange(x.shape[0], nogil=True):
            if x[i] > 0:
                self.total = x[i]
