# Golden (OpenCL backend): what a kernel reports in cy_err, under the
# default directives — bounds checks and wraparound (skipped where the
# index cannot be negative), Python's // and % on every integer and float
# type with their zero and overflow checks, true division, cdivision, an
# inner range() with a step known only at run time, integer and float
# powers.
from cython.parallel import prange
cimport cython

def wrap(double[:] a, double[:, :] m, long[:] out):
    cdef Py_ssize_t i, j
    for i in prange(1, a.shape[0], 2, nogil=True):
        a[i - 1] = a[-1] + m[i, i + 1] + m[0, -2]
        for j in range(2, 10):
            out[j] = out[j - 2] + out[j + 1]
    for i in prange(a.shape[0] - 1, -1, -1, nogil=True):
        a[i] = 0
    return j  # a live lastprivate

def divmod_ints(int[:] a, int b, long[:] c, long d, short[:] e, unsigned int[:] f, unsigned int g):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] // b + a[i] % b
        c[i] = c[i] // d + c[i] % d + c[i] // 4 + c[i] % -3
        e[i] = e[i] // <short>b + e[i] % <short>b
        f[i] = f[i] // g + f[i] % g

def divmod_floats(double[:] x, double y, float[:] u, float v):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        x[i] = x[i] // y + x[i] % y + x[i] / y
        u[i] = u[i] // v + u[i] % v + u[i] / v + u[i] / 2.0

@cython.cdivision(True)
def divmod_c(long[:] a, long b, double[:] x, double y):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] // b + a[i] % b
        x[i] = x[i] // y + x[i] % y + x[i] / y

def steps(long[:] a, long step):
    cdef Py_ssize_t i, j
    cdef long s
    for i in prange(a.shape[0], nogil=True):
        s = 0
        for j in range(0, 100, step):
            s = s + j
        a[i] = s
    return j, s  # live lastprivates

def powers(long[:] a, unsigned long[:] b, double[:] x, float[:] y):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] ** 3
        b[i] = b[i] ** 2
        x[i] = x[i] ** 0.5
        y[i] = y[i] ** y[i]

def gather(double[:] src, long[:] idx, double[:] out):
    cdef Py_ssize_t i
    for i in prange(idx.shape[0], nogil=True):
        out[i] = src[idx[i]]

def scatter(long[:] idx, double[:, ::1] m):
    cdef Py_ssize_t i
    for i in prange(idx.shape[0], nogil=True):
        m[i, idx[i]] = i
