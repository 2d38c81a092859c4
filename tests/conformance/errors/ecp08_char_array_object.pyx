# expect-error: 5:12 not supported by cyocl
# cyocl-limit: Cython converts a char array to bytes
def f():
    cdef char[4] s = [104, 105, 0, 0]
    return s
