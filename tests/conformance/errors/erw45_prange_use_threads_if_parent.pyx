# expect-error: 9:18 'use_threads_if' must de declared in the parent parallel section
# use_threads_if on a prange directly in a parallel() block (Cython's
# message, with its spelling): the condition belongs to the block.
from cython.parallel import parallel, prange

def total(int n):
    cdef int i, s = 0
    with nogil, parallel():
        for i in prange(n, use_threads_if=n > 100):
            s += i
    return s
