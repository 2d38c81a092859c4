# Golden (OpenCL backend): a kernel that OpenCL C cannot compile (260
# nested additions pass clang's bracket nesting limit of 256) leaves its
# region native, with the compiler's reason, and the rest of the module
# still gets its kernels.
from cython.parallel import prange

def many_terms(double[:] a, double[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i]

def double_it(double[:] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * 2
