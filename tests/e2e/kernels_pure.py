# Cython's pure-Python mode (a .py file): annotations as C types
# (cython.double, cython.double[:, ::1], float as a C double), @cython.cfunc
# / ccall / nogil / exceptval / locals, variable annotations and
# cython.declare, `with cython.nogil:`; the prange in norms() gets an OpenCL
# kernel that calls the cfunc.  The same file gives the same results with
# Cython (values in kernels_pure_check.py are Cython 3.3's).
import cython
from cython.parallel import prange
import numpy as np


@cython.cfunc
@cython.nogil
@cython.exceptval(-1.0, check=False)
def sq(x: cython.double) -> cython.double:
    return x * x


@cython.boundscheck(False)
@cython.wraparound(False)
def norms(a: cython.double[:, ::1], out: cython.double[::1]):
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    s: cython.double
    n: cython.Py_ssize_t = a.shape[0]
    for i in prange(n, nogil=True):
        s = 0
        for j in range(a.shape[1]):
            s = s + sq(a[i, j])
        out[i] = s
    return np.asarray(out)


@cython.locals(k=cython.int, acc=cython.long)
def tri(n: cython.int):
    acc = 0
    for k in range(n):
        acc += k
    return acc


@cython.ccall
def scale(v: cython.float[:], f: float) -> cython.int:
    i: cython.Py_ssize_t
    t = cython.declare(cython.int, 0)
    with cython.nogil:
        for i in range(v.shape[0]):
            v[i] = v[i] * f
            t += 1
    return t


def c_ops(x: cython.double, n: cython.int):
    # cython.cast / address / sizeof: <int>x, &n, sizeof(double)
    y: cython.int = cython.cast(cython.int, x)
    p: cython.p_int = cython.address(n)
    p[0] += 1
    return y + n + cython.sizeof(cython.double) + cython.sizeof(y)
