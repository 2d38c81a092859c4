# expect-opencl: yes
# Cython's own fused types (cython.floating, integral, numeric), two fused
# types in one function, cpdef, and calls that pick a specialisation at
# compile time.
cimport cython
from cython cimport integral
from cython.parallel import prange

def scale(cython.floating[:] x, double s):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        x[i] = <cython.floating>(x[i] * s)

def histogram(integral[::1] v, long[::1] counts):
    # one bin per iteration: no two iterations write the same element
    cdef Py_ssize_t b, i
    cdef long c
    for b in prange(counts.shape[0], nogil=True):
        c = 0
        for i in range(v.shape[0]):
            if v[i] == b:
                c = c + 1
        counts[b] = c

def gather_sum(cython.floating[:] a, integral[:] idx):
    cdef Py_ssize_t i
    cdef double acc = 0
    for i in prange(idx.shape[0], nogil=True):
        acc += a[idx[i]]
    return acc

cpdef integral clamp(integral x, integral lo, integral hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x

def clamp_all(int[:] v, int lo, int hi):
    cdef Py_ssize_t i
    for i in range(v.shape[0]):
        v[i] = clamp(v[i], lo, hi)

def total(cython.numeric[:] v):
    cdef cython.numeric acc = 0
    cdef Py_ssize_t i
    for i in range(v.shape[0]):
        acc += v[i]
    return acc

def kind(cython.numeric x):
    if cython.numeric is double:
        return "double"
    if cython.numeric is long:
        return "long"
    if cython.numeric is cython.doublecomplex:
        return "double complex"
    return "other"
