# Cython's ctuples: (double, Py_ssize_t) results of cdef and cpdef
# functions (nogil ones too), locals from tuple displays, a, b = f(...)
# unpacking, t[0] / t[-1], and a tuple as a Python object either way.
from cython.parallel import prange
cdef (double, Py_ssize_t) argmin(double[::1] a) noexcept nogil:
    cdef Py_ssize_t i, k = 0
    cdef double m = a[0]
    for i in range(1, a.shape[0]):
        if a[i] < m:
            m = a[i]
            k = i
    return m, k

cdef (int, int) divmod_c(int a, int b):
    return a // b, a % b

def row_argmin(double[:, ::1] x, double[::1] vals, Py_ssize_t[::1] idx):
    cdef Py_ssize_t r
    cdef double v
    cdef Py_ssize_t k
    for r in range(x.shape[0]):
        v, k = argmin(x[r])
        vals[r] = v
        idx[r] = k

def pair(int a, int b):
    cdef (int, int) t = divmod_c(a, b)
    cdef (double, int) u = (1.5, 2)
    return t, t[0] + t[1], u[-1], u

cpdef (double, double) minmax(double[::1] a):
    cdef double lo = a[0], hi = a[0]
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi

def take(t):
    cdef (int, double) c = t
    return c[0] * 2, c[1]

def row_argmin_par(double[:, ::1] x, Py_ssize_t[::1] idx):
    cdef Py_ssize_t r
    cdef (double, Py_ssize_t) best
    for r in prange(x.shape[0], nogil=True):
        best = argmin(x[r])
        idx[r] = best[1]
