# expect-opencl: yes
# The numpy tutorial's way of writing a prange kernel: bounds and scratch
# values left untyped (Cython infers x_max = img.shape[0] as Py_ssize_t and
# w = 0.0 / w += ... as double, so range(y_max) runs without the GIL), a
# dtype as a module constant, np.zeros with it, the array returned.
import numpy as np
cimport cython
from cython.parallel import prange

OUT_DTYPE = np.float64


cdef inline double clamp(double v, double lo, double hi) noexcept nogil:
    return lo if v < lo else hi if v > hi else v


@cython.boundscheck(False)
@cython.wraparound(False)
def blend(double[:, ::1] img_a, double[:, ::1] img_b, double alpha, double gain):
    x_max = img_a.shape[0]
    y_max = img_a.shape[1]
    if img_b.shape[0] != x_max or img_b.shape[1] != y_max:
        raise ValueError("images differ in shape")
    result = np.zeros((x_max, y_max), dtype=OUT_DTYPE)
    cdef double[:, ::1] out = result
    cdef Py_ssize_t x, y
    cdef double v
    for x in prange(x_max, nogil=True):
        for y in range(y_max):
            v = alpha * img_a[x, y] + (1.0 - alpha) * img_b[x, y]
            out[x, y] = clamp(v * gain, 0.0, 1.0)
    return result


@cython.boundscheck(False)
@cython.wraparound(False)
def weighted_total(double[:] v, double[:] w):
    total = 0
    norm = 0.0
    n = v.shape[0]
    for i in prange(n, nogil=True):
        total += v[i] * w[i]
        norm += w[i]
    return total / norm if norm != 0 else 0.0
