# Keyword-only parameters after a bare '*', as library-style entry points
# write them (def f(X, *, n_threads=4, out=None)): by keyword only, with
# or without a default; Python's TypeErrors (Cython's wording) for too
# many positional arguments or a missing keyword-only one; calls inside
# the module.
from cython.parallel import prange
import numpy as np


def scaled_sum(double[:] x, *, double scale=1.0, int n_threads=2):
    cdef double s = 0
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True, num_threads=n_threads):
        s += x[i]
    return s * scale


def clip_into(double[:] x, double lo=0.0, *, double hi, out=None):
    if out is None:
        out = np.empty(x.shape[0])
    cdef double[:] o = out
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        o[i] = min(max(x[i], lo), hi)
    return out


def both(double[:] x):
    return scaled_sum(x, scale=0.5), clip_into(x, hi=1.0)[0]
