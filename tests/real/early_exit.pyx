# expect-opencl: yes
# Control flow inside parallel loops: inline helpers that return early from a
# loop, break/continue in nested loops, and a nogil helper declared except -1
# that raises inside the prange.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.math cimport fabs
import numpy as np


cdef inline int first_above(const double[:] row, double t) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(row.shape[0]):
        if row[j] > t:
            return <int>j
    return -1


cdef inline int escape_time(double cr, double ci, int maxit) noexcept nogil:
    cdef double zr = 0, zi = 0, t
    cdef int k
    for k in range(maxit):
        t = zr * zr - zi * zi + cr
        zi = 2 * zr * zi + ci
        zr = t
        if zr * zr + zi * zi > 4.0:
            return k
    return maxit


def first_crossing(const double[:, ::1] x, double t, int[::1] out):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = first_above(x[i], t)


def escape(const double[::1] cr, const double[::1] ci, int maxit, int[::1] out):
    cdef Py_ssize_t i
    for i in prange(cr.shape[0], nogil=True, schedule='dynamic'):
        out[i] = escape_time(cr[i], ci[i], maxit)


def pair_search(const long[:, ::1] rows, long target, long[::1] found):
    # first pair (j, k), j < k, per row with rows[i, j] + rows[i, k] == target;
    # zeros are skipped (continue), the search stops at the first hit (break)
    cdef Py_ssize_t i, j, k, m = rows.shape[1]
    cdef long hit
    for i in prange(rows.shape[0], nogil=True):
        hit = -1
        for j in range(m):
            if rows[i, j] == 0:
                continue
            for k in range(j + 1, m):
                if rows[i, k] == 0:
                    continue
                if rows[i, j] + rows[i, k] == target:
                    hit = j * m + k
                    break
            if hit >= 0:
                break
        found[i] = hit


cdef int checked_sqrt(double v, double *out) except -1 nogil:
    if v < 0:
        with gil:
            raise ValueError("negative input %r" % v)
    out[0] = v ** 0.5
    return 0


def safe_roots(const double[::1] x, double[::1] out):
    cdef Py_ssize_t i
    cdef double r
    for i in prange(x.shape[0], nogil=True):
        # assigned in the body, so private to each thread (Cython's rule);
        # only passed by address (&r), r would be shared by the team: a race
        r = 0.0
        checked_sqrt(x[i], &r)
        out[i] = r


def count_until_nan(const double[:, ::1] x, int[::1] out):
    # while loop with a compound condition and a flag
    cdef Py_ssize_t i, j
    cdef int c
    for i in prange(x.shape[0], nogil=True):
        j = 0
        c = 0
        while j < x.shape[1] and x[i, j] == x[i, j]:
            if fabs(x[i, j]) < 1.0:
                c = c + 1
            j = j + 1
        out[i] = c
