# expect-opencl: yes
# A 3x3 stencil whose weights live in a C array (as hand-written Cython
# image filters keep them), plus a per-pixel private neighbourhood array
# sorted for a median filter.
# cython: boundscheck=False, wraparound=False
import numpy as np
from cython.parallel import prange

def sharpen(double[:, ::1] img):
    cdef double[3][3] k = [[0, -1, 0], [-1, 5, -1], [0, -1, 0]]
    cdef Py_ssize_t h = img.shape[0], w = img.shape[1], i, j
    cdef int di, dj
    cdef double s
    out = np.zeros((h, w))
    cdef double[:, ::1] o = out
    for i in prange(1, h - 1, nogil=True):
        for j in range(1, w - 1):
            s = 0
            for di in range(3):
                for dj in range(3):
                    s = s + k[di][dj] * img[i + di - 1, j + dj - 1]
            o[i, j] = s
    return out

def median3x3(double[:, ::1] img):
    cdef double[9] nb
    cdef Py_ssize_t h = img.shape[0], w = img.shape[1], i, j
    cdef int a, b
    cdef double t
    out = np.zeros((h, w))
    cdef double[:, ::1] o = out
    for i in prange(1, h - 1, nogil=True):
        for j in range(1, w - 1):
            nb = [img[i - 1, j - 1], img[i - 1, j], img[i - 1, j + 1],
                  img[i, j - 1], img[i, j], img[i, j + 1],
                  img[i + 1, j - 1], img[i + 1, j], img[i + 1, j + 1]]
            for a in range(1, 9):
                t = nb[a]
                b = a - 1
                while b >= 0 and nb[b] > t:
                    nb[b + 1] = nb[b]
                    b = b - 1
                nb[b + 1] = t
            o[i, j] = nb[4]
    return out
