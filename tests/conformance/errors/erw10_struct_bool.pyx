# expect-error: 8:8 Type 'Vec' not acceptable as a boolean
# A struct is no condition (Cython's error).
cdef struct Vec:
    double x, y

def f(int n):
    cdef Vec p = Vec(n, 2)
    if p:
        return 1
    return 0
