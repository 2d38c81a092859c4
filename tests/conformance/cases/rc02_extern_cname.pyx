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

# older code's qsort declaration: a ctypedef with a C name
cdef extern from "stdlib.h":
    ctypedef void const_void "const void"
    void c_qsort "qsort"(void *base, size_t nmemb, size_t size,
                         int (*compar)(const_void *, const_void *)) nogil

cdef int cmp_desc(const_void *a, const_void *b) noexcept nogil:
    cdef double x = (<double *> a)[0], y = (<double *> b)[0]
    return (x < y) - (x > y)

def sort_desc(double[::1] a):
    if a.shape[0]:
        c_qsort(&a[0], a.shape[0], sizeof(double), cmp_desc)
