# expect-error: 3:22 Cannot take address of Python variable
def f(x):
    cdef double *p = &x
    return 1
