# expect-opencl: yes
# double complex / float complex in prange bodies, which OpenCL kernels run
# as double2 / float2: a Julia set through a cdef function taking complex
# arguments, z.real / z.imag / z.conjugate() / abs(z), complex literals,
# in-place operators, a complex scalar argument, complex memoryviews read
# and written, a reduction of abs(z), and a division by zero raising
# ZeroDivisionError.  + - * / give the native bits (the kernels compute
# what GCC's code does); abs() is hypot, within OpenCL's ULP bound.  A
# complex power keeps its region native.
# cython: boundscheck=False, wraparound=False
cimport cython
from cython.parallel import prange
import numpy as np

cdef int escape(double complex z, double complex c, int maxit) noexcept nogil:
    cdef int k
    for k in range(maxit):
        if z.real * z.real + z.imag * z.imag > 4.0:
            return k
        z = z * z + c
    return maxit

@cython.cdivision(True)
cdef inline double complex mix(double complex a, double complex b) noexcept nogil:
    return a * b.conjugate() - 0.5j * a + b / (a + 3.0)

cdef double complex steps(double complex z, double complex b) noexcept nogil:
    # in-place operators on a complex variable (in a prange body they would
    # make reductions)
    cdef double complex acc = 1
    cdef int k
    for k in range(3):
        acc *= z
        acc += 0.25
    acc -= b
    acc /= 2.0
    return acc

def julia(int w, int h, double complex c, int maxit):
    cdef int[:, ::1] out = np.zeros((h, w), dtype=np.intc)
    cdef int x, y
    cdef double complex z
    for y in prange(h, nogil=True):
        for x in range(w):
            z = (-1.5 + 3.0 * x / w) + (-1.0 + 2.0 * y / h) * 1j
            out[y, x] = escape(z, c, maxit)
    return np.asarray(out)

def total_abs(double complex[::1] zs):
    cdef Py_ssize_t i
    cdef double t = 0
    for i in prange(zs.shape[0], nogil=True):
        t += abs(zs[i])
    return t

def arith(double complex[::1] a, double complex[::1] b, double complex w, double complex[::1] out,
          double[::1] parts):
    cdef Py_ssize_t i
    cdef double complex z, acc
    for i in prange(a.shape[0], nogil=True):
        z = a[i] * w + b[i].conjugate() / (a[i] + 2j)
        acc = steps(z, b[i])
        if a[i] == b[i] or z != z:
            acc = -acc
        z.real = 7.5
        out[i] = mix(acc, z) + z
        parts[i] = (-a[i]).imag + a[i].real * 2 - abs(b[i] - a[i]) * 0
    return np.asarray(out)

def quotients(double complex[::1] a, double complex[::1] b, double complex[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] / b[i]

def single(float complex[::1] a, float complex[::1] b, float complex[::1] out):
    cdef Py_ssize_t i
    cdef float complex z
    for i in prange(a.shape[0], nogil=True):
        z = a[i] * b[i] + a[i]
        out[i] = z / b[i] - 1j

def squares(double complex[::1] a, double complex[::1] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] ** 2
