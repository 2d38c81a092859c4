# libc.time's clock(), time() and CLOCKS_PER_SEC, as kernels time
# themselves; `cimport libc.time` was refused.
from libc.time cimport clock, time, CLOCKS_PER_SEC

def busy(int n):
    cdef long t0 = clock()
    cdef double s = 0
    cdef int i
    for i in range(n):
        s += i * 0.5
    return (clock() - t0) / <double>CLOCKS_PER_SEC, s

def now():
    return time(NULL)
