# Residency across the regions of one call (DESIGN §4.5-4.6): driven by
# tests/opencl/residency.py, which reads the trace.
# cython: boundscheck=False, wraparound=False
cimport cython
import numpy as np
from cython.parallel import prange

cdef void _step(double[:, ::1] u, double[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Py_ssize_t n = u.shape[0], m = u.shape[1]
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

def jacobi(double[:, ::1] u, double[:, ::1] tmp, int steps):
    cdef int s
    for s in range(steps):
        _step(u, tmp)
        _step(tmp, u)

def scale(double[::1] a, double k):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * k

def host_between(double[::1] a):
    """device write, host read, host write, device read+write, host read."""
    cdef Py_ssize_t i, n = a.shape[0]
    for i in prange(n, nogil=True):
        a[i] = a[i] + 1.0
    cdef double first = a[0]          # must see the device's write
    a[n - 1] = -100.0                 # must reach the next device region
    for i in prange(n, nogil=True):
        a[i] = a[i] * 2.0
    return first, a[n - 1]

def serial_loop_after(double[::1] a):
    """a serial loop after a device region: checked once, before the loop."""
    cdef Py_ssize_t i, n = a.shape[0]
    cdef double s = 0.0
    for i in prange(n, nogil=True):
        a[i] = a[i] * 3.0
    for i in range(n):
        s += a[i]
    return s

cdef double _fill_and_sum(Py_ssize_t n):
    # a temporary array written on the device and dropped when this returns:
    # its memory goes back to numpy while the device has the only copy
    cdef double[::1] t = np.empty(n)
    cdef Py_ssize_t i
    for i in prange(n, nogil=True):
        t[i] = <double>i
    cdef double s = 0.0
    for i in prange(n, nogil=True):
        s += t[i]
    return s

def temporaries(Py_ssize_t n, int rounds):
    cdef double total = 0.0
    cdef int r
    for r in range(rounds):
        total += _fill_and_sum(n)
    return total

def through_python(double[::1] a, f):
    """a device region, then Python code that reads and writes the array,
    then another device region."""
    cdef Py_ssize_t i, n = a.shape[0]
    for i in prange(n, nogil=True):
        a[i] = a[i] + 1.0
    f()
    for i in prange(n, nogil=True):
        a[i] = a[i] * 10.0

@cython.boundscheck(True)
def write_then_fail(double[::1] a, Py_ssize_t bad):
    """writes a on the device, then a region that raises IndexError."""
    cdef Py_ssize_t i, n = a.shape[0]
    for i in prange(n, nogil=True):
        a[i] = 7.0
    for i in prange(n, nogil=True):
        a[i + bad] = 1.0


cpdef double scale_twice(double[::1] a, double k):
    """a cpdef with a C result: its call scope must hold the whole body"""
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * k
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * k
    return k

def peek(double[::1] a, Py_ssize_t i):
    """a host read of one array (the others stay on the device)."""
    return a[i]

def poke(double[::1] a, Py_ssize_t i, double v):
    """a host write of one array: its device copy goes, the others' stay."""
    a[i] = v

def layer(double[:, ::1] x, double[:, ::1] out):
    cdef Py_ssize_t i, j
    for i in prange(x.shape[0], nogil=True):
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] * 2.0 + 1.0

def two_layers(double[:, ::1] x, double[:, ::1] hidden, double[:, ::1] out):
    """a def calling a def (through its global name, as mlp2 does)"""
    layer(x, hidden)
    layer(hidden, out)

def fill_even(double[::1] a, double v):
    """writes every other element only: the others keep their host values
    (the device buffer, reused from the pool, held other bytes)"""
    cdef Py_ssize_t i
    for i in prange(0, a.shape[0], 2, nogil=True):
        a[i] = v
