# expect-warning: 21:18 'lo' is read in the prange body before the body assigns it
# expect-warning: 22:24 'hi' is read in the prange body before the body assigns it
# expect-warning: 31:17 't' is read in the prange body before the body assigns it
# expect-warning: 40:29 'prev' is read in the prange body before the body assigns it
# A variable a prange body assigns plainly is private to each thread in
# Cython (lastprivate; only an in-place + - * & | ^ makes a reduction). Read
# before the body assigns it, it carries each thread's own value from
# iteration to iteration: lo = min(lo, x[i]) is not a minimum, and what
# Cython's build returns changes with OMP_NUM_THREADS (a kernel's
# work-items give other numbers again). A warning, naming the variable; no
# warning where each iteration assigns it first (s = 0 before an inner
# loop, prev carried only within the inner loop) or for a reduction.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange, parallel


def pattern(const double[::1] x, const double[:, ::1] a, double[::1] out):
    cdef double lo = 1e300, hi = -1e300, s = 0, t = 0, prev = 0, r = 0, tot = 0
    cdef Py_ssize_t i, j
    for i in prange(x.shape[0], nogil=True):
        lo = min(lo, x[i])
        hi = max(x[i], hi)
        tot += x[i]
    for i in prange(a.shape[0], nogil=True):
        s = 0
        for j in range(a.shape[1]):
            s = s + a[i, j]
        out[i] = s
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            t = t + a[i, j]
        out[i] = t
    for i in prange(a.shape[0], nogil=True):
        for j in range(a.shape[1]):
            if j > 0:
                out[i] += a[i, j] - r
            r = a[i, j]
    for i in prange(x.shape[0], nogil=True):
        if i > 0:
            out[i] = x[i] - prev
        prev = x[i]
    return lo, hi, tot, s, t, r, prev
