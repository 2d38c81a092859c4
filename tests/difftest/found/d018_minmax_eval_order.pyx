# min()/max(): Cython evaluates the 2nd .. last arguments, then the 1st — which error is raised
# when several arguments would raise (tests/difftest finding, shrunk by hand)
from cython.parallel import prange


def f(double[:] a, double[:, :] b, Py_ssize_t i, Py_ssize_t j, double z):
    return max(a[i], b[0, j]), min(a[i], b[0, j], 3.0 % z), max(a[i], 3.0 % z), max(3.0 % z, a[i])


def g(double[:] a, double[:, :] b, double[:] out, Py_ssize_t j):
    cdef Py_ssize_t i
    for i in prange(out.shape[0], nogil=True):
        out[i] = max(a[i + j], b[0, i + j])
