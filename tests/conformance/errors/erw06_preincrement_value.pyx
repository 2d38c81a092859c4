# expect-error: 7:22 preincrement() used as a value is not supported by cyocl
# cyocl-limit
# ++x inside an expression (as a statement it is x += 1).
from cython.operator cimport preincrement
def f(int n):
    cdef int x = n
    cdef int y = 2 * preincrement(x)
    return y
