# expect-error: 5:12 C struct/union member cannot be a Python object
# A struct field must be a C type (Cython's error).
cdef struct Rec:
    double x
    object tag

def f():
    cdef Rec r
    r.x = 1
    return r.x
