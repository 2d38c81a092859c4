# expect-error: 8:20 HEXAGON not a known value of Shape
# Scoped access to an enumerator the enum does not have (Cython's error).
cpdef enum Shape:
    SQUARE = 1
    CIRCLE

def f():
    cdef Shape s = Shape.HEXAGON
    return s
