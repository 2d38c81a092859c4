# Golden (C backend): prange reductions and a lastprivate with the default
# directives (bounds checks and wraparound on; the checks on the loop index
# are hoisted out of the loop), a break with its shared stop flag, and an
# exception raised under `with gil` inside the region.
from cython.parallel import prange

def dot(double[:] a, double[:] b):
    cdef Py_ssize_t i
    cdef double acc = 0.0
    for i in prange(a.shape[0], nogil=True):
        acc += a[i] * b[i]
    return acc

def count_and_last(long[:] v):
    cdef Py_ssize_t i
    cdef long total = 0
    cdef long last = -1
    for i in prange(v.shape[0], nogil=True):
        if v[i] > 0:
            total += 1
        last = v[i]
    return total, last

def first_negative(double[:] a):
    cdef Py_ssize_t i
    cdef Py_ssize_t at = -1
    for i in prange(a.shape[0], nogil=True):
        if a[i] < 0:
            at = i
            break
    return at

def checked_sum(double[:] a):
    cdef Py_ssize_t i
    cdef double s = 0.0
    for i in prange(a.shape[0], nogil=True):
        if a[i] != a[i]:
            with gil:
                raise ValueError("NaN at %d" % i)
        s += a[i]
    return s
