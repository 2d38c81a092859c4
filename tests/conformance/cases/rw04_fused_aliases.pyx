# Other names of fused types, as real files spell them: a ctypedef of
# cython.floating, pure-Python mode's cython.fused_type(...) and
# cython.typedef(...) (annotations `a: my_type`, `my_type[:, ::1]`, a cfunc
# returning `-> my_type`, `if my_type is cython.int`), and the axis spelling
# `[:, ::]` (a strided axis, as ':').  Each specialisation has its own
# parallel region and OpenCL kernel.
# expect-opencl: yes
import cython
cimport cython
from cython.parallel import prange
import numpy as np

ctypedef cython.floating real
ctypedef cython.integral index_t

my_type = cython.fused_type(cython.int, cython.double, cython.longlong)
weight_t = cython.typedef(cython.double)


cdef inline real lerp(real a, real b, real t) noexcept nogil:
    return a + (b - a) * t


def blend(real[:, ::] a, real[:, ::1] b, real t, index_t[:] rows, real[:, ::1] out):
    cdef Py_ssize_t k, j
    for k in prange(rows.shape[0], nogil=True):
        for j in range(a.shape[1]):
            out[k, j] = lerp(a[rows[k], j], b[rows[k], j], t)
    return out.shape[0]


@cython.exceptval(check=False)
@cython.nogil
@cython.cfunc
def clip(a: my_type, lo: my_type, hi: my_type) -> my_type:
    return min(max(a, lo), hi)


@cython.boundscheck(False)
@cython.wraparound(False)
def compute(array_1: my_type[:, ::1], array_2: my_type[:, ::1], a: my_type, b: my_type, w: weight_t):
    x_max: cython.Py_ssize_t = array_1.shape[0]
    y_max: cython.Py_ssize_t = array_1.shape[1]
    if my_type is cython.int:
        dtype = np.intc
    elif my_type is cython.double:
        dtype = np.double
    else:
        dtype = np.longlong
    result = np.zeros((x_max, y_max), dtype=dtype)
    result_view: my_type[:, ::1] = result
    tmp: my_type
    x: cython.Py_ssize_t
    y: cython.Py_ssize_t
    for x in prange(x_max, nogil=True):
        for y in range(y_max):
            tmp = clip(array_1[x, y], 2, 10)
            tmp = tmp * a + array_2[x, y] * b
            result_view[x, y] = tmp
    return result, w * 2
