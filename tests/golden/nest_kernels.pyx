# Golden (ir/loops.c): the loop nest of each prange region — loops with
# bounds and constant trip counts, every view access as an affine map over
# the loops ("?" where the index is not affine), the views each loop reads
# and writes, the scalar reductions a serial loop carries (matmul's s over
# k; none where the variable is read elsewhere in the loop, or set by a
# plain assignment inside it), and the pairs of views whose overlap the
# runtime must rule out before it reorders iterations ("alias c/a").
from cython.parallel import prange

def matmul(double[:, ::1] a, double[:, ::1] b, double[:, ::1] c):
    cdef Py_ssize_t i, j, k, n = a.shape[0], m = b.shape[1], p = a.shape[1]
    cdef double s
    for i in prange(n, nogil=True):
        for j in range(m):
            s = 0
            for k in range(p):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s

def matmul_commuted(float[:, :] a, float[:, :] b, float[:, :] c):
    cdef Py_ssize_t i, j, k
    cdef float s
    for i in prange(a.shape[0], nogil=True):
        for j in range(b.shape[1]):
            s = 0
            for k in range(a.shape[1]):
                s = b[k, j] * a[i, k] + s
            c[i, j] = s

def jacobi(double[:, ::1] u, double[:, ::1] t):
    cdef Py_ssize_t i, j
    for i in prange(1, u.shape[0] - 1, nogil=True):
        for j in range(1, u.shape[1] - 1):
            t[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

def affine_forms(double[:] a, long[:] idx, double[:] out, int n):
    cdef Py_ssize_t i, j
    cdef double acc, bad
    for i in prange(4, nogil=True):
        acc = 1
        bad = 0
        for j in range(0, 10, 3):
            out[2 * i + j + n] = a[idx[i]] * a[i * j] + a[-j + 3 - 2 * i]
            acc = acc * a[j]
            out[i] = acc + 1
            bad = bad + 1
            bad = a[j]
        out[i] += bad

def strided_rows(double[:, :] x, double[:] out):
    cdef Py_ssize_t i, j
    cdef double m
    for i in prange(x.shape[0], nogil=True):
        m = 0
        for j in range(x.shape[1] - 1, -1, -1):
            m = m + x[i, j] * x[i, j]
        out[i] = m

def two_levels(double[:, :, ::1] a, double[:] out):
    # a reduction at each level: t over k, s over j
    cdef Py_ssize_t i, j, k
    cdef double s, t
    for i in prange(a.shape[0], nogil=True):
        s = 0
        for j in range(a.shape[1]):
            t = 1
            for k in range(a.shape[2]):
                t = t * a[i, j, k]
            s = s + t
        out[i] = s

def int_reductions(long[:, ::1] a, long[:] out, double[:] acc):
    # -, & and ^ (an operand on either side of a commutative one); a view
    # element updated in place is an access, not a scalar reduction
    cdef Py_ssize_t i, j
    cdef long d, m, x
    for i in prange(a.shape[0], nogil=True):
        d = 0
        m = -1
        x = 0
        for j in range(a.shape[1]):
            d = d - a[i, j]
            m = m & a[i, j]
            x = a[i, j] ^ x
            acc[i] += 1.0
        out[i] = d + m + x

def not_reductions(double[:, ::1] a, double[:] out):
    # none: s is read by a condition, q set by a plain assignment, r updated
    # by two operators; s - r is no reduction of either
    cdef Py_ssize_t i, j
    cdef double s, q, r
    for i in prange(a.shape[0], nogil=True):
        s = 0
        q = 0
        r = 1
        for j in range(a.shape[1]):
            if s < 10:
                s = s + a[i, j]
            q = a[i, j]
            r = r + a[i, j]
            r = r * 2
        out[i] = s + q + r

def triangle(double[:, ::1] a, double[:] out):
    # j's bound moves with i: its trip count is not known before the
    # launch; the k loop inside it counts as if j ran once
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(a.shape[0], nogil=True):
        s = 0
        for j in range(i):
            for k in range(a.shape[1]):
                s = s + a[j, k]
        out[i] = s

cimport cython

@cython.boundscheck(False)
@cython.wraparound(False)
def fill_rows(double[:, ::1] a, double[:, ::1] out, double[::1] v):
    # out[i, j] at every (i, j): written whole (v is not written)
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            out[i, j] = 2 * a[i, j]

@cython.boundscheck(False)
@cython.wraparound(False)
def fill_vec(double[::1] a, double[::1] v, double[::1] w, double[::1] u):
    # v[i] always; w[i] only where a[i] > 0; u[i + 1] (shifted) and read
    cdef Py_ssize_t i
    for i in prange(a.shape[0] - 1, nogil=True):
        v[i] = a[i]
        if a[i] > 0:
            w[i] = a[i]
        u[i + 1] = u[i + 1] + 1

@cython.boundscheck(False)
@cython.wraparound(False)
def skip_some(double[::1] a, double[::1] v):
    # a continue before the write: not every element is written
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        if a[i] < 0:
            continue
        v[i] = a[i]

@cython.boundscheck(False)
@cython.wraparound(False)
def moved_j(double[:, ::1] a, double[:, ::1] out):
    # the body moves j before the write: not every [i, j] is written
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            j = j // 2
            out[i, j] = a[i, j]
