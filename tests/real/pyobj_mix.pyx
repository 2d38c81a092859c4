# cython: boundscheck=False, wraparound=False
cimport cython
cimport openmp
from cython.parallel import prange, threadid
from cython.view cimport array as cvarray
import numpy as np

SIZES = [1, 5, 17]
NAMES = {"a": 1, "b": 2}
_cache = {}

def describe(double[:, :] m):
    rows = []
    for i in range(m.shape[0]):
        rows.append(f"{i}:{m[i, 0]:.2f}")
    return ", ".join(rows), len(rows), (m.shape[0], m.shape[1])

def threads_used(int n):
    cdef int i, tid
    cdef int[::1] seen = np.zeros(openmp.omp_get_max_threads() + 1, dtype=np.intc)
    for i in prange(n, nogil=True, num_threads=2):
        tid = threadid()
        seen[tid] = 1
    return int(np.asarray(seen).sum()) >= 1

def transpose_sum(double[:, :] m):
    cdef double[:, :] t = m.T
    cdef Py_ssize_t i, j
    cdef double s = 0
    for i in prange(t.shape[0], nogil=True):
        for j in range(t.shape[1]):
            s += t[i, j] * (i + 1)
    return s

def make_buffer(int n):
    cdef cvarray arr = cvarray(shape=(n,), itemsize=sizeof(double), format="d")
    cdef double[:] v = arr
    cdef int i
    for i in range(n):
        v[i] = i * 0.5
    return np.asarray(v).copy()

def cached_square(int k):
    if k in _cache:
        return _cache[k]
    r = [x * x for x in range(k)]
    _cache[k] = r
    return r

@cython.wraparound(True)
def last_items(double[:] v, int k):
    cdef int i
    out = []
    for i in range(1, k + 1):
        out.append(v[-i])
    return out

def checked(double[:] v, int i):
    with cython.boundscheck(True):
        return v[i]

def safe_div(double[:] a, double[:] b):
    cdef Py_ssize_t i
    cdef double[:] o = np.empty(a.shape[0])
    for i in prange(a.shape[0], nogil=True):
        o[i] = a[i] / b[i]
    return np.asarray(o)

TOTAL = sum(SIZES) + NAMES["b"]

from cython cimport view

def view_arrays(int n):
    cdef view.array a = view.array(shape=(n, 2), itemsize=sizeof(int), format="i")
    cdef int[:, :] s = a
    cdef int i
    for i in range(n):
        s[i, 0] = i
        s[i, 1] = -i
    my = cython.view.array(shape=(3,), itemsize=sizeof(double), format="d", mode="c")
    cdef double[::1] d = my
    d[:] = 1.5
    return np.asarray(s).sum(), np.asarray(d).tolist()
