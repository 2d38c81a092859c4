# expect-opencl: yes
# Pure-Python mode: a nogil cfunc with C locals declared by annotation and
# cython.locals, called from a 2-D prange over an image.
import cython
from cython.parallel import prange
import numpy as np


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
@cython.locals(zr=cython.double, zi=cython.double, t=cython.double, k=cython.int)
def escape(cr: cython.double, ci: cython.double, maxit: cython.int) -> cython.int:
    zr = 0.0
    zi = 0.0
    for k in range(maxit):
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        if zr * zr + zi * zi > 4.0:
            return k
    return maxit


@cython.boundscheck(False)
@cython.wraparound(False)
def mandel(h: cython.int, w: cython.int, maxit: cython.int):
    img = np.zeros((h, w), dtype=np.int32)
    v: cython.int[:, ::1] = img
    y: cython.Py_ssize_t
    x: cython.Py_ssize_t
    for y in prange(h, nogil=True):
        for x in range(w):
            v[y, x] = escape(-2.0 + 3.0 * x / w, -1.25 + 2.5 * y / h, maxit)
    return img
