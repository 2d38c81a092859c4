# Floating point without contraction (the default; docs/language.md): each
# operation is rounded on its own, natively and in OpenCL kernels, so
# results equal numpy's bit for bit.  `cyocl build --fp-contract` allows
# fused multiply-adds on both sides instead.
from cython.parallel import prange


def triad(double[::1] a, double[::1] b, double[::1] c, double s):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = b[i] + s * c[i]


def dot2(float[::1] out, float[::1] a, float[::1] b, float[::1] c, float[::1] d):
    cdef Py_ssize_t i
    for i in prange(out.shape[0], nogil=True):
        out[i] = a[i] * b[i] + c[i] * d[i]


def horner(double[:, ::1] out, double[:, ::1] x):
    cdef Py_ssize_t i, j
    for i in prange(x.shape[0], nogil=True):
        for j in range(x.shape[1]):
            out[i, j] = ((0.5 * x[i, j] - 1.25) * x[i, j] + 3.0) * x[i, j] - 0.75
