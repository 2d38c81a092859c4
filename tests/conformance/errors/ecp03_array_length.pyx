# expect-error: 4:9 wrong length
def f():
    cdef int[3] v
    v = [1, 2]
    return v[0]
