# expect-error: 12:20 local variable 't' referenced before assignment
# A private of one parallel() block read in the next one, inside a branch:
# unbound on every path that reaches the read.
from cython.parallel import parallel, threadid

def two_blocks(int n, int[:] v):
    cdef int t
    with nogil, parallel():
        t = threadid()
    with nogil, parallel():
        if n > 0:
            v[0] = t
    return 0
