# expect-opencl: yes
"""A module split as packages split them: its own .pxd (a cdef class's
attributes, a cpdef method and a cdef function declared there), shared C
declarations cimported from another .pxd, and text included from a .pxi."""
# cython: boundscheck=False, wraparound=False
import numpy as np
cimport numpy as cnp
from cython.parallel import prange
from pxd_geom_types cimport real_t, Box, Norm, NORM_L1, NORM_L2 as L2, dist1, dist2, hypot
cimport pxd_geom_types as gt

include "pxd_geom_consts.pxi"

cdef real_t clamp01(real_t v) noexcept nogil:
    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)

cdef class Grid:
    def __init__(self, real_t[:, ::1] pts):
        self.pts = pts
        self.n = pts.shape[0]

    cpdef real_t extent(self):
        cdef Box bx = Box(self.pts[0, 0], self.pts[0, 0])
        cdef Py_ssize_t i
        for i in range(self.n):
            bx.lo = min(bx.lo, self.pts[i, 0])
            bx.hi = max(bx.hi, self.pts[i, 0])
        return bx.hi - bx.lo

    def distances(self, real_t qx, real_t qy, int norm=L2):
        cdef Py_ssize_t i, n = self.n
        out = np.empty(n)
        cdef real_t[::1] o = out
        cdef real_t[:, ::1] p = self.pts
        cdef Norm m = NORM_L1 if norm == 1 else L2
        if m == NORM_L1:
            for i in prange(n, nogil=True):
                o[i] = dist1(p[i, 0], p[i, 1], qx, qy)
        else:
            for i in prange(n, nogil=True):
                o[i] = dist2(p[i, 0], p[i, 1], qx, qy)
        return out

def clamp_all(double[::1] x):
    cdef Py_ssize_t i
    out = np.empty(x.shape[0])
    cdef double[::1] o = out
    for i in prange(x.shape[0], nogil=True):
        o[i] = clamp01(x[i]) + EPS * 0
    return out

def nearest(double[::1] d):
    k = min(d.shape[0], MAXK)
    return nearest_of(d, k), k

def hyp(double a, double b):
    cdef gt.real_t r = gt.hypot(a, b)
    cdef gt.Box bx = gt.Box(a, b)
    return r if gt.NORM_L2 == 2 else bx.hi

