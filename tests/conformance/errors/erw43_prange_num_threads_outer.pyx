# expect-error: 9:18 num_threads already declared in outer section
# A prange directly in a parallel() block runs on the block's team: its own
# num_threads is Cython's error.
from cython.parallel import parallel, prange

def total(int n):
    cdef int i, s = 0
    with nogil, parallel(num_threads=2):
        for i in prange(n, num_threads=2):
            s += i
    return s
