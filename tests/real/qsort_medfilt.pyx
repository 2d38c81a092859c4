# A 2-D median filter as image-processing code writes it: a parallel()
# block where each thread mallocs its window buffer, a prange over rows,
# libc's qsort with a noexcept nogil comparison function, edges clamped,
# the buffer freed at the end of the block (regions with pointers run
# natively).
# cython: boundscheck=False, wraparound=False, cdivision=True
from cython.parallel import parallel, prange
from libc.stdlib cimport malloc, free, qsort, abort
import numpy as np
cimport numpy as cnp

cnp.import_array()


cdef int cmp_f64(const void *pa, const void *pb) noexcept nogil:
    cdef double a = (<const double *> pa)[0]
    cdef double b = (<const double *> pb)[0]
    if a < b:
        return -1
    return 1 if a > b else 0


def median_filter(cnp.ndarray[cnp.float64_t, ndim=2] img, int radius=1):
    if radius < 0:
        raise ValueError("radius must be >= 0")
    cdef Py_ssize_t h = img.shape[0], w = img.shape[1]
    cdef int side = 2 * radius + 1
    cdef int win = side * side
    out = np.empty((h, w))
    cdef double[:, ::1] o = out
    cdef Py_ssize_t y, x, yy, xx
    cdef int dy, dx, k
    cdef double *buf
    with nogil, parallel():
        buf = <double *> malloc(win * sizeof(double))
        if buf == NULL:
            abort()
        for y in prange(h, schedule="guided"):
            for x in range(w):
                k = 0
                for dy in range(-radius, radius + 1):
                    yy = min(max(y + dy, 0), h - 1)
                    for dx in range(-radius, radius + 1):
                        xx = min(max(x + dx, 0), w - 1)
                        buf[k] = img[yy, xx]
                        k = k + 1
                qsort(buf, win, sizeof(double), cmp_f64)
                o[y, x] = buf[win // 2]
        free(buf)
    return out
