# expect-error: 3:14 constant expression
def f(int n):
    cdef int[n] v
    return 1
