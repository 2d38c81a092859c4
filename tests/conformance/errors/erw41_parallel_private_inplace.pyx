# expect-error: 12:5 local variable 'p' referenced before assignment
# The same after a parallel() block, where the first use is an in-place
# operator (it reads the variable).
from cython.parallel import parallel
from libc.stdlib cimport malloc, free

def scratch(int n):
    cdef double *p = NULL
    with nogil, parallel():
        p = <double *> malloc(n * sizeof(double))
        free(p)
    p += 1
    return n
