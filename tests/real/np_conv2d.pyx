# expect-opencl: yes
# 'valid' 2-D correlation of an image with a small kernel, both
# np.ndarray[DTYPE_t, ndim=2] with a module-level ctypedef; the output is a
# new array returned to Python.
# cython: boundscheck=False, wraparound=False
cimport numpy as np
import numpy as np
from cython.parallel import prange

np.import_array()

DTYPE = np.float64
ctypedef np.float64_t DTYPE_t


def conv2d(np.ndarray[DTYPE_t, ndim=2] img, np.ndarray[DTYPE_t, ndim=2] k):
    cdef int H = img.shape[0], W = img.shape[1]
    cdef int kh = k.shape[0], kw = k.shape[1]
    cdef int oh = H - kh + 1, ow = W - kw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError("kernel larger than image")
    cdef np.ndarray[DTYPE_t, ndim=2] out = np.zeros([oh, ow], dtype=DTYPE)
    cdef int y, x, i, j
    cdef DTYPE_t s
    for y in prange(oh, nogil=True):
        for x in range(ow):
            s = 0
            for i in range(kh):
                for j in range(kw):
                    s = s + img[y + i, x + j] * k[i, j]
            out[y, x] = s
    return out
