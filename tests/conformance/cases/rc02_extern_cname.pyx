# expect-opencl: yes
# C names in extern blocks, as older Cython code declares them: the string
# after the declared name is what the C code calls (`c_sqrt "sqrt"`); a
# math.h function under another name still goes into OpenCL kernels.
from cython.parallel import prange

cdef extern from "math.h":
    double c_sqrt "sqrt"(double x) nogil
    double c_floor "floor"(double x) nogil
    double PI_ "M_PI"

cdef extern from *:
    """
    static int rc02_twice_impl(int x) { return 2 * x; }
    #define RC02_K 7
    """
    int twice "rc02_twice_impl"(int) nogil
    int K "RC02_K", K2 "RC02_K"

def roots(double[::1] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = c_sqrt(a[i]) + c_floor(a[i] * 0.5)

def consts(int x):
    cdef int r
    with nogil:
        r = twice(x) + K + K2
    return r, PI_
