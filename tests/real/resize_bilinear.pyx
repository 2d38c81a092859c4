# cython: boundscheck=False, wraparound=False, cdivision=True
import numpy as np
cimport numpy as np
from cython.parallel import prange
from libc.math cimport floor

ctypedef np.float32_t DTYPE_t

def resize(np.ndarray[DTYPE_t, ndim=2] img, int oh, int ow):
    cdef int ih = img.shape[0], iw = img.shape[1]
    cdef np.ndarray[DTYPE_t, ndim=2] out = np.empty((oh, ow), dtype=np.float32)
    cdef int y, x, y0, x0, y1, x1
    cdef float fy, fx, wy, wx
    cdef float sy = <float>ih / oh, sx = <float>iw / ow
    for y in prange(oh, nogil=True):
        fy = (y + 0.5) * sy - 0.5
        if fy < 0: fy = 0
        y0 = <int>floor(fy)
        y1 = min(y0 + 1, ih - 1)
        wy = fy - y0
        for x in range(ow):
            fx = (x + 0.5) * sx - 0.5
            if fx < 0: fx = 0
            x0 = <int>floor(fx)
            x1 = min(x0 + 1, iw - 1)
            wx = fx - x0
            out[y, x] = ((1 - wy) * ((1 - wx) * img[y0, x0] + wx * img[y0, x1]) +
                         wy * ((1 - wx) * img[y1, x0] + wx * img[y1, x1]))
    return out
