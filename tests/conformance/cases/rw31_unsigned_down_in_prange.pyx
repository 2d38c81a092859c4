# expect-opencl: yes
# An unsigned range() counter going down inside a prange (range(n - 1, -1, -1)
# over a size_t: Cython's loop runs n times) gives the same on OpenCL, where
# the kernel could otherwise run the prange and the loop as one iteration
# space whose count converts the stop -1 to the type's maximum (no iteration).
from cython.parallel import prange

def g(int n, int m, long[:, :] out):
    cdef size_t j
    cdef int i
    for i in prange(m, nogil=True):
        for j in range(n - 1, -1, -1):
            out[i, j] = 10 * j + i
    return 0

def h(Py_ssize_t n, int m, long[:] out):
    cdef unsigned int j
    cdef int i
    cdef long s = 0
    for i in prange(m, nogil=True):
        for j in range(n - 1, -1, -2):
            s += j
    return s
