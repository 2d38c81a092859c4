# expect-error: 8:10 memoryviews of struct 'Vec' are not supported by cyocl
# cyocl-limit
# A memoryview of structs (a buffer with a struct format).
cdef struct Vec:
    double x, y

def f(n):
    cdef Vec[:] v = n
    return v.shape[0]
