# expect-opencl: yes
# Complex arithmetic the way fractal and signal code writes it: a Julia set
# through a cdef inline function taking double complex arguments, Newton's
# method for z**3 - 1 (complex division, abs()), and the power of a
# complex spectrum written back into a complex memoryview.
# cython: boundscheck=False, wraparound=False, cdivision=True
from cython.parallel import prange
import numpy as np

cdef inline int julia_escape(double complex z, double complex c, int maxit) noexcept nogil:
    cdef int k
    for k in range(maxit):
        if z.real * z.real + z.imag * z.imag > 4.0:
            return k
        z = z * z + c
    return maxit

def julia(int w, int h, double complex c, int maxit=200):
    cdef int[:, ::1] out = np.zeros((h, w), dtype=np.intc)
    cdef int x, y
    cdef double complex z
    for y in prange(h, nogil=True, schedule='dynamic'):
        for x in range(w):
            z = (-1.5 + 3.0 * x / w) + (-1.0 + 2.0 * y / h) * 1j
            out[y, x] = julia_escape(z, c, maxit)
    return np.asarray(out)

cdef inline int newton_root(double complex z, int maxit, double tol) noexcept nogil:
    cdef int k
    cdef double complex dz
    for k in range(maxit):
        dz = (z * z * z - 1) / (3 * z * z)
        z = z - dz
        if abs(dz) < tol:
            break
    # which cube root of 1 it found: by the sign of the imaginary part
    if z.real > 0:
        return 0
    return 1 if z.imag > 0 else 2

def newton(int w, int h, int maxit=40):
    cdef unsigned char[:, ::1] out = np.zeros((h, w), dtype=np.uint8)
    cdef int x, y
    for y in prange(h, nogil=True):
        for x in range(w):
            out[y, x] = newton_root((-2.0 + 4.0 * (x + 0.5) / w) + (-2.0 + 4.0 * (y + 0.5) / h) * 1j, maxit, 1e-12)
    return np.asarray(out)

def whiten(double complex[::1] spec, double floor):
    # each bin scaled to unit magnitude (bins below floor zeroed); returns
    # the total power before
    cdef Py_ssize_t i
    cdef double p, total = 0
    cdef double complex s
    for i in prange(spec.shape[0], nogil=True):
        s = spec[i]
        p = abs(s)
        total += p * p
        if p < floor:
            spec[i] = 0
        else:
            spec[i] = s / p
    return total
