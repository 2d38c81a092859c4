# expect-opencl: yes
# C math functions declared by the file itself, as older code does it
# (cdef extern from "math.h"), in prange regions: those OpenCL C has
# (erf, tgamma, hypot, expf, ...) get a kernel, others (j0) keep the
# region native; constants the header defines (M_PI) are C numbers.
from cython.parallel import prange

cdef extern from "math.h":
    double erf(double) nogil
    double tgamma(double x) nogil
    double hypot(double, double) nogil
    float expf(float) nogil
    double j0(double) nogil
    double M_PI
    int FP_NAN

cdef extern from "math.h" nogil:
    double lgamma(double)
    double fabs(double x)

def special(double[:] a, double[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = erf(a[i]) + tgamma(a[i] + 1) + hypot(a[i], 2.0) + lgamma(a[i] + 1) - fabs(-a[i]) * M_PI

def single(float[:] a, float[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = expf(a[i])

def bessel(double[:] a, double[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = j0(a[i])

def serial(double x):
    return erf(x), M_PI, FP_NAN
