# expect-opencl: yes
# cdef class methods whose prange loops run over the instance's memoryview
# attributes (each region reads self.w through a local view, so that it
# still gets its OpenCL kernel), cdef/cpdef/nogil methods called on self,
# __cinit__ and __dealloc__, 2-D view attributes readable from Python.
from cython.parallel import prange

cdef int alive = 0


def alive_count():
    return alive


cdef class Layer:
    cdef double[:, ::1] w
    cdef readonly double[::1] b
    cdef public double scale
    cdef readonly Py_ssize_t n_in, n_out

    def __cinit__(self):
        global alive
        alive += 1
        self.scale = 1.0

    def __init__(self, double[:, ::1] w, double[::1] b):
        self.w = w
        self.b = b
        self.n_out = w.shape[0]
        self.n_in = w.shape[1]

    def __dealloc__(self):
        global alive
        alive -= 1

    cdef inline double act(self, double v) noexcept nogil:
        return v if v > 0 else 0.01 * v

    def forward(self, double[::1] x, double[::1] out):
        cdef Py_ssize_t i, j
        cdef double acc
        for i in prange(self.n_out, nogil=True):
            acc = self.b[i]
            for j in range(self.n_in):
                acc = acc + self.w[i, j] * x[j]
            out[i] = self.scale * acc
        return out

    def activate(self, double[::1] out):
        cdef Py_ssize_t i
        with nogil:
            for i in range(out.shape[0]):
                out[i] = self.act(out[i])

    cpdef double wsum(self):
        cdef Py_ssize_t i, j
        cdef double s = 0
        for i in prange(self.n_out, nogil=True):
            for j in range(self.n_in):
                s += self.w[i, j]
        return s

    cdef double bias_sum(self):
        cdef double s = 0
        cdef Py_ssize_t i
        for i in range(self.n_out):
            s += self.b[i]
        return s

    def total(self):
        return self.wsum() + self.bias_sum()

    def rescale(self, double f):
        cdef Py_ssize_t i, j
        for i in prange(self.n_out, nogil=True):
            for j in range(self.n_in):
                self.w[i, j] = self.w[i, j] * f
        self.scale = self.scale / f


def run(Layer layer, double[::1] x):
    import numpy as np
    out = np.empty(layer.n_out)
    layer.forward(x, out)
    layer.activate(out)
    return out
