# expect-opencl: yes
# An RGB image as a 3-D memoryview: grayscale weights in a C array (read by
# the prange: passed to the kernel by value), a 3x3 box blur with a private
# C array of row sums, and the result returned as np.asarray of a typed view.
# cython: boundscheck=False, wraparound=False
import numpy as np
from cython.parallel import prange

def gray_blur(unsigned char[:, :, ::1] img):
    cdef Py_ssize_t h = img.shape[0], w = img.shape[1], y, x, k
    cdef double[3] wts = [0.299, 0.587, 0.114]
    cdef double[3] rows
    g = np.zeros((h, w))
    cdef double[:, ::1] gv = g
    for y in prange(h, nogil=True):
        for x in range(w):
            gv[y, x] = wts[0] * img[y, x, 0] + wts[1] * img[y, x, 1] + wts[2] * img[y, x, 2]
    out = np.zeros((h, w))
    cdef double[:, ::1] ov = out
    for y in prange(1, h - 1, nogil=True):
        for x in range(1, w - 1):
            rows = [gv[y - 1, x - 1] + gv[y - 1, x] + gv[y - 1, x + 1],
                    gv[y, x - 1] + gv[y, x] + gv[y, x + 1],
                    gv[y + 1, x - 1] + gv[y + 1, x] + gv[y + 1, x + 1]]
            ov[y, x] = (rows[0] + rows[1] + rows[2]) / 9.0
    return np.asarray(gv), np.asarray(ov)
