# expect-opencl: yes
"""Module-level code as public kernels have it: a lookup table computed at
import into a typed module-level memoryview, module-level C constants and a
counter, a docstring, an assert at import; the table read in a prange."""
# cython: boundscheck=False, wraparound=False
import numpy as np
from cython.parallel import prange
from libc.math cimport floor

cdef int NTAB = 1024
cdef double STEP = 2.0 * np.pi / NTAB
_table = np.cos(np.arange(NTAB + 1) * STEP)
cdef double[::1] TAB = _table
assert TAB.shape[0] == NTAB + 1
cdef long ncalls = 0

def table():
    return np.asarray(TAB)

def cos_lut(double[::1] x):
    """cos(x) by linear interpolation in the module's table."""
    global ncalls
    ncalls += 1
    cdef Py_ssize_t i, k
    cdef double t, f
    out = np.empty(x.shape[0])
    cdef double[::1] o = out
    for i in prange(x.shape[0], nogil=True):
        t = x[i] / STEP
        t = t - NTAB * floor(t / NTAB)
        k = <Py_ssize_t>t
        if k >= NTAB:
            k = NTAB - 1
        f = t - k
        o[i] = TAB[k] * (1.0 - f) + TAB[k + 1] * f
    return out

def calls():
    return ncalls
