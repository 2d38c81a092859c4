# expect-error: 11:12 local variable 'x' referenced before assignment
# A variable assigned in a parallel() block is private to each thread and
# unbound after the block (Cython's flow analysis): reading it there is
# Cython's error, not the value some thread left.
from cython.parallel import parallel, threadid

def last_thread(int n):
    cdef int x = 0
    with nogil, parallel():
        x = threadid() + n
    return x
