# expect-opencl: yes
# try/finally as kernels use it (free() of malloc'd scratch whatever
# happens): the finally statements run when the body ends, returns,
# breaks, continues or raises (the exception propagates after them, or is
# dropped when they leave by a jump), nested, in a nogil block around a
# prange (an OpenCL kernel) and inside a prange body (native: "try/finally").
# cython: boundscheck=True
from libc.stdlib cimport malloc, free
from cython.parallel import prange

log = []

def scratch(double[:] a, int k):
    cdef double *buf = <double *>malloc(a.shape[0] * sizeof(double))
    cdef Py_ssize_t i
    cdef double s = 0
    try:
        for i in range(a.shape[0]):
            buf[i] = a[i] * 2
        for i in range(a.shape[0]):
            s += buf[i]
            if s > k:
                return -s
        s += a[k]          # IndexError when k is out of range
    finally:
        free(buf)
        log.append(('freed', k))
    return s

def loops(int n):
    out = []
    cdef int i
    for i in range(n):
        try:
            if i == 1:
                continue
            if i == 3:
                break
            out.append(i)
        finally:
            out.append(-i)
    return out

def swallow(int k):
    cdef int i
    for i in range(3):
        try:
            if k:
                raise ValueError('x')
        finally:
            if k == 1:
                break
    return i

def override():
    try:
        return 1
    finally:
        log.append('override')

def nested(x):
    try:
        try:
            return 1 / x
        finally:
            log.append('inner')
    finally:
        log.append('outer')

def nogil_sum(double[:] a):
    cdef double s = 0
    cdef Py_ssize_t i
    with nogil:
        try:
            for i in prange(a.shape[0]):
                s += a[i]
        finally:
            s = s * 2
    return s


def in_prange(double[:] a):
    cdef double s = 0, t = 0
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        try:
            t = a[i] * 2
        finally:
            s += t
    return s
