# Built with no_opencl=True (setup.py): no OpenCL code, no runtime import.
from cython.parallel import prange


def scale(double[::1] x, double f):
    """x *= f, in place."""
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        x[i] = x[i] * f
