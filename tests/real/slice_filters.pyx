# expect-opencl: yes
# Image filters: box blur and Sobel with border handling by slice copies,
# fills of whole views, overlapping row copies, threshold on uint8.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
import numpy as np


def box3(const float[:, ::1] img, float[:, ::1] out):
    cdef Py_ssize_t i, j, h = img.shape[0], w = img.shape[1]
    out[0, :] = img[0, :]
    out[h - 1, :] = img[h - 1, :]
    for i in prange(1, h - 1, nogil=True):
        out[i, 0] = img[i, 0]
        out[i, w - 1] = img[i, w - 1]
        for j in range(1, w - 1):
            out[i, j] = (img[i - 1, j - 1] + img[i - 1, j] + img[i - 1, j + 1]
                         + img[i, j - 1] + img[i, j] + img[i, j + 1]
                         + img[i + 1, j - 1] + img[i + 1, j] + img[i + 1, j + 1]) / 9.0


def sobel_mag2(const double[:, :] img, double[:, ::1] out):
    cdef Py_ssize_t i, j
    cdef double gx, gy
    out[:, :] = 0.0
    for i in prange(1, img.shape[0] - 1, nogil=True):
        for j in range(1, img.shape[1] - 1):
            gx = (img[i - 1, j + 1] + 2 * img[i, j + 1] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i, j - 1] - img[i + 1, j - 1])
            gy = (img[i + 1, j - 1] + 2 * img[i + 1, j] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i - 1, j] - img[i - 1, j + 1])
            out[i, j] = gx * gx + gy * gy


def rows_copy_shift(double[:, ::1] a, int s):
    # each row shifted right by s within itself (overlapping slice copy per row)
    cdef Py_ssize_t i, w = a.shape[1]
    for i in range(a.shape[0]):
        a[i, s:] = a[i, :w - s]
        a[i, :s] = 0.0


def threshold(const unsigned char[:, ::1] img, unsigned char t, unsigned char[:, ::1] out):
    cdef Py_ssize_t i, j
    for i in prange(img.shape[0], nogil=True):
        for j in range(img.shape[1]):
            out[i, j] = 255 if img[i, j] > t else 0
