# distutils: language = c
# cython: language_level = 3, embedsignature = True
# cython: boundscheck=False, wraparound=False
"""What a public kernel file carries besides its loops: distutils and
directive comments with spaces, a docstring, module-level constants and
Python code run at import, max/min/abs on C numbers, assert and raise with
messages; a clip-and-sum prange with reductions."""
import numpy as np
from cython.parallel import prange

DEFAULT_LIMIT = 3.0
cdef double EPS = 1e-12
NAMES = ("stat_0", "stat_1", "stat_2")

def clip_stats(double[:] x, double limit=3.0):
    """Clips x in place to [-limit, limit]; returns (sum, sum of |x|, clipped count)."""
    if limit <= 0:
        raise ValueError("limit must be positive, got %r" % limit)
    assert x.shape[0] >= 0, "negative length"
    cdef Py_ssize_t i
    cdef double s = 0, sa = 0, v
    cdef long nclip = 0
    for i in prange(x.shape[0], nogil=True):
        v = min(max(x[i], -limit), limit)
        if abs(v - x[i]) > EPS:
            nclip += 1
        x[i] = v
        s += v
        sa += abs(v)
    return dict(zip(NAMES, (s, sa, nclip)))

def int_range(long[:] a):
    cdef Py_ssize_t i
    cdef long lo = 0, hi = 0, spread = 0
    if a.shape[0] == 0:
        return None
    lo = a[0]
    hi = a[0]
    for i in range(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    spread = abs(hi - lo)
    return lo, hi, spread
