# cython: boundscheck=False, wraparound=False, cdivision=True
import numpy as np
cimport numpy as np
cimport cython
from cython.parallel import prange
from libc.math cimport exp, round as cround

np.import_array()

cdef double GAMMA_LUT[256]
cdef int _i
for _i in range(256):
    GAMMA_LUT[_i] = (_i / 255.0) ** 2.2

cdef inline unsigned char clamp_u8(double v) noexcept nogil:
    if v < 0:
        return 0
    if v > 255:
        return 255
    return <unsigned char>(v + 0.5)

def to_gray(np.ndarray[np.uint8_t, ndim=3] rgb):
    cdef Py_ssize_t h = rgb.shape[0], w = rgb.shape[1], y, x
    cdef np.ndarray[np.uint8_t, ndim=2] g = np.empty((h, w), dtype=np.uint8)
    for y in prange(h, nogil=True):
        for x in range(w):
            g[y, x] = clamp_u8(0.299 * rgb[y, x, 0] + 0.587 * rgb[y, x, 1] + 0.114 * rgb[y, x, 2])
    return g

cpdef double[::1] gaussian_kernel(int radius, double sigma):
    cdef double[::1] k = np.empty(2 * radius + 1)
    cdef int i
    cdef double s = 0
    for i in range(-radius, radius + 1):
        k[i + radius] = exp(-(i * i) / (2 * sigma * sigma))
        s += k[i + radius]
    for i in range(2 * radius + 1):
        k[i] /= s
    return k

def blur_rows(const unsigned char[:, ::1] img, int radius=2, double sigma=1.0):
    cdef double[::1] k = gaussian_kernel(radius, sigma)
    cdef Py_ssize_t h = img.shape[0], w = img.shape[1], y, x
    cdef int t, xx
    cdef double acc
    out = np.empty((h, w), dtype=np.uint8)
    cdef unsigned char[:, ::1] o = out
    for y in prange(h, nogil=True, schedule='static'):
        for x in range(w):
            acc = 0
            for t in range(-radius, radius + 1):
                xx = x + t
                if xx < 0:
                    xx = -xx
                elif xx >= w:
                    xx = 2 * w - xx - 2
                acc = acc + k[t + radius] * img[y, xx]
            o[y, x] = clamp_u8(acc)
    return out

def gamma_mean(const unsigned char[:, ::1] img):
    cdef Py_ssize_t y, x
    cdef double s = 0
    for y in prange(img.shape[0], nogil=True):
        for x in range(img.shape[1]):
            s += GAMMA_LUT[img[y, x]]
    return s / (img.shape[0] * img.shape[1])

cdef int check_positive(double v) except -1 nogil:
    if v < 0:
        with gil:
            raise ValueError("negative value %r" % v)
    return 0

def sqrt_all(double[::1] v):
    cdef Py_ssize_t i
    out = np.empty(v.shape[0])
    cdef double[::1] o = out
    for i in prange(v.shape[0], nogil=True):
        check_positive(v[i])
        o[i] = v[i] ** 0.5
    return out
