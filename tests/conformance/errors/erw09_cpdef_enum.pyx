# expect-error: 4:1 cpdef enums are not supported by cyocl
# cyocl-limit
# A cpdef enum (a Python IntEnum class in Cython 3).
cpdef enum Shape:
    SQUARE = 1
    CIRCLE

def f():
    return SQUARE
