# A prange nested in a prange (it runs serially, as OpenMP runs a nested
# region with one thread) with an in-place operator in the inner loop: a
# variable the outer body first assigns plainly is the outer loop's private
# and may be read after the inner loop (as Cython allows); one it does not
# assign stays a reduction of the outer loop.
# expect-opencl: yes
from cython.parallel import prange


def row_sums(int[:, :] a, long[:] out):
    cdef int i, j
    cdef long s
    for i in prange(a.shape[0], nogil=True):
        s = 0
        for j in prange(a.shape[1]):
            s += a[i, j]
        out[i] = s * 2


def total(int[:, :] a):
    cdef int i, j
    cdef long t = 0
    for i in prange(a.shape[0], nogil=True):
        for j in prange(a.shape[1]):
            t += a[i, j]
    return t
