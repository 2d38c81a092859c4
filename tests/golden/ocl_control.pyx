# Golden (OpenCL backend): control flow and variable classes in kernels —
# reductions with every operator (several in one loop), lastprivates, a
# break in the prange body (the breaking iteration's values win), continue,
# loops with else clauses, cdef functions calling each other (a float one
# calling a double one); and constructs that keep a region native, each
# with its reason.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

cdef int g_count = 0
cdef double g_scale = 2.0

cdef double twice(double x) noexcept nogil:
    return 2.0 * x

cdef float halve(float x) noexcept nogil:
    return <float>(twice(x) / 4.0)

cdef int clamp(int v, int lo, int hi) noexcept nogil:
    if v < lo:
        return lo
    elif v > hi:
        return hi
    return v

cdef void nothing(int x) noexcept nogil:
    pass

cdef double by_view(double[:] v) noexcept nogil:
    return v[0]

cdef double may_raise(double x) nogil:
    return 1.0 / x

cdef double noexcept_div(double x) noexcept nogil:
    return 1.0 / x

cdef double uses_global(double x) noexcept nogil:
    return x * g_scale

def reductions(long[:] v, double[:] x):
    cdef Py_ssize_t i
    cdef long s = 0, d = 100, p = 1, a = -1, o = 0, e = 0
    cdef double fs = 0.0, fd = 0.0, fp = 1.0
    for i in prange(v.shape[0], nogil=True):
        s += v[i]
        d -= v[i]
        p *= v[i]
        a &= v[i]
        o |= v[i]
        e ^= v[i]
        fs += x[i]
        fd -= x[i]
        fp *= x[i]
    return s, d, p, a, o, e, fs, fd, fp

def first_big(double[:] x, double limit):
    cdef Py_ssize_t i
    cdef double last = 0.0
    cdef Py_ssize_t at = -1
    for i in prange(x.shape[0], nogil=True):
        last = x[i]
        if x[i] > limit:
            at = i
            break
        if x[i] < 0:
            continue
        x[i] = x[i] * 2
    return at, last

def loops(int[:] out, int n):
    cdef Py_ssize_t i
    cdef int k, m
    for i in prange(out.shape[0], nogil=True):
        k = 0
        while k < n:
            if k * k > i:
                break
            k = k + 1
        else:
            k = -1
        for m in range(n):
            if m == 7:
                break
            if m % 2 == 0:
                continue
            k = k + m
        else:
            k = k * 2
        out[i] = clamp(k, 0, 1000)
    return k, m  # the lastprivates stay live (tests/unit/oclrun.c reads them)

def calls(float[:] a, double[:] b):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = halve(a[i])
        b[i] = twice(b[i]) + g_count
        nothing(3)

def native_only(double[:] a, double[:] b, int[:] c):
    cdef Py_ssize_t i, j
    for i in prange(a.shape[0], nogil=True):
        a[i] = by_view(b)
    for i in prange(a.shape[0], nogil=True):
        a[i] = may_raise(a[i])
    for i in prange(a.shape[0], nogil=True):
        a[i] = noexcept_div(a[i])
    for i in prange(a.shape[0], nogil=True):
        a[i] = uses_global(a[i])
    for i in prange(a.shape[0], nogil=True):
        assert a[i] > 0
    for i in prange(c.shape[0], nogil=True):
        for j in prange(c.shape[0]):
            c[j] = 1

cdef Py_ssize_t early_return(double[:] a) noexcept nogil:
    cdef Py_ssize_t i
    for i in prange(a.shape[0]):
        if a[i] < 0:
            return i
    return -1
