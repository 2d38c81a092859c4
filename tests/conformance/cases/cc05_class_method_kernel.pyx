# expect-opencl: yes
# cython: cdivision=True
# nogil cdef methods called on self inside prange: a method that reads only
# C attributes of self runs in the region through a flat version (the
# attributes as arguments), so the region keeps its OpenCL kernel; one that
# reads a view attribute or calls another method runs natively, the same.
from cython.parallel import prange
from libc.math cimport exp


cdef class Logistic:
    cdef double k, x0, top
    cdef double[::1] offs

    def __init__(self, double k, double x0, double top, double[::1] offs):
        self.k = k
        self.x0 = x0
        self.top = top
        self.offs = offs

    cdef inline double f(self, double x) noexcept nogil:
        return self.top / (1.0 + exp(-self.k * (x - self.x0)))

    cdef double g(self, Py_ssize_t i, double x) noexcept nogil:
        return self.f(x) + self.offs[i % self.offs.shape[0]]

    def curve(self, double[::1] xs, double[::1] out):
        cdef Py_ssize_t i
        for i in prange(xs.shape[0], nogil=True):
            out[i] = self.f(xs[i])
        return out

    def shifted(self, double[::1] xs, double[::1] out):
        cdef Py_ssize_t i
        for i in prange(xs.shape[0], nogil=True):
            out[i] = self.g(i, xs[i])
        return out

    def total(self, double[::1] xs):
        cdef Py_ssize_t i
        cdef double s = 0
        for i in prange(xs.shape[0], nogil=True):
            s += self.f(xs[i]) * self.k
        return s
