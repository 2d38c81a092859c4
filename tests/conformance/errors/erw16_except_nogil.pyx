# expect-error: 9:9 Try-except statement not allowed without gil
# try/except needs the GIL (Cython's error).
cdef int g(int x) except -1 nogil:
    return x

def f(int x):
    cdef int r = 0
    with nogil:
        try:
            r = g(x)
        except ValueError:
            r = -1
    return r
