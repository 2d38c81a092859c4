# expect-error: 5:9 Cannot assign type
def f():
    cdef double *p
    cdef void *q = NULL
    p = q
    return 1
