# cython.view.array as real files allocate scratch and results:
# `cvarray(shape=(n, m), itemsize=sizeof(double), format="d")` assigned to
# typed memoryviews, filled by a parallel() block with prange loops, and
# returned; `from cython cimport view` with view.array(..., mode="c").
# cython: boundscheck=False, wraparound=False
# expect-opencl: yes
from cython.parallel import parallel, prange
from cython.view cimport array as cvarray
from cython cimport view
from libc.math cimport sqrt


def eudist(double[:, ::1] m1, double[:, ::1] m2):
    cdef Py_ssize_t i, j, k, n1 = m1.shape[0], n2 = m2.shape[0], d = m1.shape[1]
    cdef double[:, ::1] out = cvarray(shape=(n1, n2), itemsize=sizeof(double), format="d")
    cdef double[::1] norms = cvarray(shape=(n1,), itemsize=sizeof(double), format="d")
    with nogil, parallel():
        for i in prange(n1, schedule='guided'):
            norms[i] = 0
            for k in range(d):
                norms[i] += m1[i, k] * m1[i, k]
            for j in range(n2):
                out[i, j] = 0
                for k in range(d):
                    out[i, j] += (m1[i, k] - m2[j, k]) * (m1[i, k] - m2[j, k])
                out[i, j] = sqrt(out[i, j])
    return out, norms


def counts(int n, int m):
    cdef int[:, ::1] c = view.array(shape=(n, m), itemsize=sizeof(int), format="i", mode="c")
    cdef Py_ssize_t i, j
    for i in prange(n, nogil=True):
        for j in range(m):
            c[i, j] = <int>(i * m + j)
    return c.shape[0], c.shape[1], c[n - 1, m - 1], c
