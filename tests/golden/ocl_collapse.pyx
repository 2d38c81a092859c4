# Golden (OpenCL backend): a prange whose body is one range() loop runs as
# one (i, j) iteration space when the j iterations are independent — a
# stencil, a matrix product, a 2-D reduction with lastprivates, a strided
# inner loop counting down, `continue` and bounds checks in the inner body —
# and stays one work-item per row when they are not: a running value
# carried from j to j (in a variable or through memory), bounds that
# depend on i, a break out of the inner loop, statements around it.
from cython.parallel import prange

def stencil(double[:, ::1] u, double[:, ::1] out):
    cdef Py_ssize_t i, j
    cdef Py_ssize_t n = u.shape[0], m = u.shape[1]
    for i in prange(1, n - 1, nogil=True):
        for j in range(1, m - 1):
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    return j  # a live lastprivate

def matmul(float[:, ::1] a, float[:, ::1] b, float[:, ::1] c):
    cdef Py_ssize_t i, j, k
    cdef float s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0
            for k in range(a.shape[1]):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s
    return k, j, s  # live lastprivates

def energy(double[:, :] u, double[:, :] out):
    cdef Py_ssize_t i, j
    cdef double d, total = 0.0
    for i in prange(u.shape[0], nogil=True):
        for j in range(u.shape[1] - 1, -1, -2):
            if u[i, j] < 0:
                continue
            d = u[i, j] * 2.0
            out[i, j] = d
            total += d * d
    return total, d, j

def running(double[:, ::1] a, double[:, ::1] out):
    cdef Py_ssize_t i, j
    cdef double acc
    for i in prange(a.shape[0], nogil=True):
        acc = 0.0
        for j in range(a.shape[1]):
            if a[i, j] < 0:
                continue
            acc = acc + a[i, j]
            out[i, j] = acc
    return j, acc  # live lastprivates

def carried(double[:, ::1] a):
    cdef Py_ssize_t i, j
    cdef double acc = 0.0
    for i in prange(a.shape[0], nogil=True):
        for j in range(1, a.shape[1]):
            a[i, j] = a[i, j - 1] + 1.0
    return j  # live lastprivates

def carried_var(double[:, ::1] a, double[:, ::1] out):
    cdef Py_ssize_t i, j
    cdef double prev
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            if j > 0:
                out[i, j] = a[i, j] - prev
            prev = a[i, j]
    return prev, j  # live lastprivates

def triangle(double[:, ::1] m):
    cdef Py_ssize_t i, j
    for i in prange(m.shape[0], nogil=True):
        for j in range(i + 1):
            m[i, j] = i * 1000.0 + j
    return j  # live lastprivates

def clear_until_negative(double[:, ::1] a):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            if a[i, j] < 0:
                break
            a[i, j] = 0
    return j  # live lastprivates

def find_in_rows(double[:, ::1] a, long[::1] where):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            if a[i, j] > 0.5:
                break
        where[i] = j
    return j  # live lastprivates
