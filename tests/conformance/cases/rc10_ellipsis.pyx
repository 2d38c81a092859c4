# expect-opencl: yes
# Ellipsis in memoryview indices (v[...] = x, v[..., 0], v[0, ...]) means
# the axes not given, as in numpy and Cython; elsewhere it is Python's
# Ellipsis.
from cython.parallel import prange
def fill(double[:, :] m, double v):
    m[...] = v

def first_col(double[:, ::1] m, double[::1] out):
    out[...] = m[..., 0]

def scale(double[:, :, :] a, double f):
    a[..., 1:] = f
    a[0, ...] = 0

def rowsum(double[:, ::1] m, double[::1] out):
    cdef Py_ssize_t i
    cdef double[:] r
    for i in prange(m.shape[0], nogil=True):
        out[i] = m[i, ...][0] + m[i, ...][1]

def obj(a):
    return a[..., 0], ... is Ellipsis
