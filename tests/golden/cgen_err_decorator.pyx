# A decorator cyocl does not understand is an error, not silently dropped
# (here `cython` is not cimported, so this is not the directive).
from cython.parallel import prange

@cython.boundscheck(True)
def f(double[::1] a, Py_ssize_t k):
    a[k] = 1.0

@staticmethod
def g():
    pass
