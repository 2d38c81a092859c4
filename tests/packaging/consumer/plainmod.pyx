from cython.parallel import prange


def squares(long[::1] out):
    cdef Py_ssize_t i
    for i in prange(out.shape[0], nogil=True):
        out[i] = i * i
