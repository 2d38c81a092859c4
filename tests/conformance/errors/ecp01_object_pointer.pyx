# expect-error: 3:10 Pointer base type cannot be a Python object
def f():
    cdef object *p = NULL
    return 1
