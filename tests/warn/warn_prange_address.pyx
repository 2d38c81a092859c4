# expect-warning: 26:21 'r' is shared by all threads of the prange
# expect-warning: 29:21 'p' is shared by all threads of the prange
# expect-warning: 41:25 'r' is shared by all threads of the parallel block
# A prange body that passes a variable by address (f(&r)) but never assigns
# it: Cython makes a variable private only where the body assigns it, so r
# is the team's one variable, a race. Valid Cython: a warning naming it.
# Assigned in the body (q), a lock (shared on purpose) or an index: none.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange, parallel
cimport openmp

cdef void twice(double x, double *r) noexcept nogil:
    r[0] = x * 2

cdef struct P:
    double a


def f(const double[::1] x, double[::1] out):
    cdef Py_ssize_t i
    cdef double r, q
    cdef P p
    cdef openmp.omp_lock_t lock
    openmp.omp_init_lock(&lock)
    for i in prange(x.shape[0], nogil=True):
        twice(x[i], &r)
        q = 0
        twice(x[i], &q)
        twice(x[i], &p.a)
        openmp.omp_set_lock(&lock)
        out[i] = r + q + p.a
        openmp.omp_unset_lock(&lock)
    openmp.omp_destroy_lock(&lock)


def g(const double[::1] x, double[::1] out):
    cdef Py_ssize_t i
    cdef double r
    with nogil, parallel():
        for i in prange(x.shape[0]):
            twice(x[i], &r)
            out[i] = r
