# The native blocked schedule (ir/plan.c, PLAN_BLOCK) as cgen emits it: the
# per-call overlap check, units of rows, the passes of pre and post, the
# register tile pasting the k-loop's own code, the leftover columns and rows.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

def layer(double[:, ::1] x, double[:, ::1] w, double[::1] bias, double[:, ::1] out):
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in prange(x.shape[0], nogil=True):
        for j in range(w.shape[1]):
            s = bias[j]
            for k in range(x.shape[1]):
                s = s + x[i, k] * w[k, j]
            out[i, j] = s if s > 0 else 0.0
