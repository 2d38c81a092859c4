# The module's own declarations, as a package keeps them beside the .pyx:
# Cython reads pxd_geom.pxd before pxd_geom.pyx.
cimport numpy as cnp
from pxd_geom_types cimport real_t

cdef class Grid:
    cdef public Py_ssize_t n
    cdef real_t[:, ::1] pts
    cpdef real_t extent(self)

cdef real_t clamp01(real_t v) noexcept nogil
