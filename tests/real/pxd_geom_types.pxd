# Shared C declarations cimported by name: a ctypedef, a struct, an enum,
# an extern block and inline functions (no module of their own to link).
from libc.math cimport sqrt, fabs

ctypedef double real_t

cdef struct Box:
    real_t lo
    real_t hi

cdef enum Norm:
    NORM_L1 = 1
    NORM_L2 = 2

cdef extern from "math.h":
    double hypot(double x, double y) nogil

cdef inline real_t dist2(real_t ax, real_t ay, real_t bx, real_t by) noexcept nogil:
    return sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by))

cdef inline real_t dist1(real_t ax, real_t ay, real_t bx, real_t by) noexcept nogil:
    return fabs(ax - bx) + fabs(ay - by)
