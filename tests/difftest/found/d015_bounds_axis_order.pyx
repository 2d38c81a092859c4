# which axis an IndexError names when several are out of bounds: Cython evaluates every index,
# then checks them and names the last axis that fails (tests/difftest finding, shrunk by hand)
from cython.parallel import prange


def f(double[:, :, :] a, Py_ssize_t i, Py_ssize_t j, Py_ssize_t k):
    return a[i, j, k]


def g(double[:, :, :] a, long[:] out, Py_ssize_t j, Py_ssize_t k):
    cdef Py_ssize_t i
    for i in prange(out.shape[0], nogil=True):
        out[i] = <long>a[i, j, k + i - i]


def h(double[:, :] a, Py_ssize_t i, Py_ssize_t j, Py_ssize_t z):
    return a[i, j // z]            # the index raises before any axis is checked
