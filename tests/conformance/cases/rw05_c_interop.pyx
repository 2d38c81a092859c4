# C-level spellings real kernels use: char * arguments from bytes (and
# len() of one, strlen), assigning z.real / z.imag of a C complex (in a
# prange body too), `view[i, j] += obj` where the right side is a Python
# object (Python's operation, converted back), and an extern declaration
# whose argument is a lone typedef name (`DTYPE_t sqrt(DTYPE_t)`).
# cython: boundscheck=False, wraparound=False
cimport numpy as cnp
import numpy as np
from cython.parallel import prange

ctypedef cnp.float64_t DTYPE_t

cdef extern from "math.h" nogil:
    DTYPE_t sqrt(DTYPE_t)
    DTYPE_t hypot(DTYPE_t, double)


def edit_distance(char *s, char *t):
    cdef int i, j
    cdef int m = len(s)
    cdef int n = len(t)
    cdef int[:, ::1] d = np.zeros((m + 1, n + 1), dtype=np.intc)
    for i in range(1, m + 1):
        d[i, 0] = i
    for j in range(1, n + 1):
        d[0, j] = j
    for j in range(1, n + 1):
        for i in range(1, m + 1):
            if s[i - 1] == t[j - 1]:
                d[i, j] = d[i - 1, j - 1]
            else:
                d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + 1)
    return d[m, n], len(s)


cpdef long checksum(const unsigned char *data, long n):
    cdef long k, h = 0
    for k in range(n):
        h = (h * 31 + data[k]) % 1000003
    return h


def grid(double x0, double y0, double step, int n):
    cdef double complex[:, ::1] out = np.empty((n, n), dtype=np.complex128)
    cdef double complex z
    cdef float complex zf
    cdef int i, j
    for i in prange(n, nogil=True):
        for j in range(n):
            z.real = x0 + i * step
            z.imag = y0 + j * step
            out[i, j] = z
    zf = 1 + 2j
    zf.imag = -0.5
    zf.real = zf.real * 3
    return np.asarray(out), complex(zf)


def scaled_add(double[:, ::1] acc, double[::1] w, factor):
    cdef int i, j
    for i in range(acc.shape[0]):
        for j in range(acc.shape[1]):
            acc[i, j] += factor * w[j]
    return acc[0, 0]


def norms(DTYPE_t[:, ::1] x, DTYPE_t[::1] out):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = sqrt(x[i, 0] * x[i, 0] + x[i, 1] * x[i, 1]) - hypot(x[i, 0], x[i, 1])
