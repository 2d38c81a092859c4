# expect-opencl: yes
# cpdef enums as Cython 3 makes them: the module gets the enum as a Python
# IntEnum class, C values of the type convert to its members (a value with
# none to a pseudo-member), an anonymous one gives module ints; scoped
# access (Shape.CIRCLE) is the C enumerator, also in an OpenCL kernel.
from cython.parallel import prange

cpdef enum Shape:
    SQUARE = 1
    CIRCLE
    TRIANGLE = 5

cpdef enum:
    LIMIT_LO = -2
    LIMIT_HI

cdef enum Plain:
    P0, P1

cdef Shape default_shape = TRIANGLE

def area_kind(Shape s):
    return s

def members():
    return SQUARE, Shape.CIRCLE, default_shape, P1, Shape.TRIANGLE == 5

def classify(double[:] r, int[:] out):
    cdef Py_ssize_t i
    for i in prange(r.shape[0], nogil=True):
        if r[i] < 1.0:
            out[i] = Shape.SQUARE
        elif r[i] < 2.0:
            out[i] = CIRCLE
        else:
            out[i] = Shape.TRIANGLE + LIMIT_LO

def shape_of(int k):
    cdef Shape s = <Shape>k
    return s
