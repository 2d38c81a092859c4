# Golden (native backend): where a module built with OpenCL tests the
# runtime's residency word (docs/runtime.md, "Residency"): before serial
# statements that read view memory (mask 1) or write it / run Python (mask 3),
# once before a loop that cannot start a device region, at every test of a
# while condition when the loop can, before a region that runs natively;
# only the views the statement touches where they are all named views
# (CYRT_HOSTV), every array otherwise (CYRT_HOST);
# and the call scope around a def that may launch (also when it raises).
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

cdef void _fill(double[::1] a, double v) noexcept nogil:
    cdef Py_ssize_t i
    for i in prange(a.shape[0]):
        a[i] = v

def serial_after(double[::1] a):
    cdef Py_ssize_t i
    cdef double s = 0.0
    _fill(a, 1.0)
    s = a[0]                      # a read
    a[1] = 2.0                    # a write
    for i in range(a.shape[0]):   # checked once, before the loop
        s += a[i]
    return s

def loop_with_launch(double[::1] a, int n):
    cdef int k = 0
    while a[0] < n:               # checked at every test: the body launches
        _fill(a, a[0] + 1.0)
        k += 1
    return k

cpdef double status_return(double[::1] a) except? -1:
    _fill(a, 3.0)
    return a[0]
