# ** of C complex numbers as Cython computes it: __Pyx_c_pow_double is C's
# cpow (glibc's) wherever the C compiler has complex numbers, so (1+2j) ** 2
# is -3+4.000000000000002j; cyocl used Cython's fallback code for compilers
# without them, which also lost (-8+0j) ** (1/3.)'s root (nan+0j). A
# non-integer exponent makes Cython's soft complex: as an object a float
# where the imaginary part is zero ((2+0j) ** (-1+0j) is 0.5).
# cython: boundscheck=False, wraparound=False


def as_object(double complex z, double complex w):
    return z ** w, z ** 2, z ** 0.5, z ** -1


def loop(const double complex[::1] z, double complex[::1] out):
    cdef Py_ssize_t i
    for i in range(z.shape[0]):
        out[i] = z[i] ** 2 + z[i] ** 3 + z[i] ** (0.5 + 0.25j)


def single(float complex z, float complex w):
    cdef float complex r = z ** w
    return r
