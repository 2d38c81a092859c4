# Golden (C backend): a cdef class as an extension type: its object struct
# (fields a_NAME), tp_new with __cinit__, tp_dealloc with __dealloc__, GC
# slots for the object attribute, getters/setters of public and readonly
# attributes, a def method's wrapper taking the instance as cy_self, a cdef
# method as a C function of the instance, and a prange over a view attribute
# read through a local loaded before the region.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

cdef class Scaled:
    """y = k * x"""
    cdef double[::1] buf
    cdef public double k
    cdef readonly Py_ssize_t n
    cdef public object tag

    def __cinit__(self):
        self.k = 1.0

    def __init__(self, double[::1] buf, double k=2.0):
        self.buf = buf
        self.n = buf.shape[0]
        self.k = k

    def __dealloc__(self):
        self.n = 0

    cdef double one(self, Py_ssize_t i) noexcept nogil:
        return self.k * self.buf[i]

    def apply(self, double[::1] out):
        cdef Py_ssize_t i
        for i in prange(self.n, nogil=True):
            out[i] = self.k * self.buf[i]
        return self.one(0)
