# expect-opencl: yes
# Pure-Python mode as in Cython's docs: annotations as C types, a cfunc
# helper, cython.declare, directive decorators; a prange reduction and an
# element-wise prange.  (The same syntax builds from a .py file.)
import cython
from cython.parallel import prange
import numpy as np


@cython.cfunc
@cython.nogil
@cython.inline
@cython.exceptval(check=False)
def fma_like(a: cython.double, x: cython.double, y: cython.double) -> cython.double:
    return a * x + y


@cython.boundscheck(False)
@cython.wraparound(False)
def axpy(a: cython.double, x: cython.double[::1], y: cython.double[::1]):
    i: cython.Py_ssize_t
    n: cython.Py_ssize_t = x.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"length mismatch: {n} != {y.shape[0]}")
    out = np.empty(n)
    o: cython.double[::1] = out
    for i in prange(n, nogil=True):
        o[i] = fma_like(a, x[i], y[i])
    return out


@cython.boundscheck(False)
def dot(x: cython.double[:], y: cython.double[:]) -> cython.double:
    s = cython.declare(cython.double, 0.0)
    i: cython.Py_ssize_t
    for i in prange(x.shape[0], nogil=True):
        s += x[i] * y[i]
    return s
