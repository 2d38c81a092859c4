# expect-error: 9:18 num_threads must be declared in the parent parallel section
# The same where the parallel() block names no num_threads: it must go
# there, not on the prange.
from cython.parallel import parallel, prange

def total(int n):
    cdef int i, s = 0
    with nogil, parallel():
        for i in prange(n, num_threads=4):
            s += i
    return s
