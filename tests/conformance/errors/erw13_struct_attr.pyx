# expect-error: 10:12 attribute 'z' of struct 'Vec' (not a field) is not supported by cyocl
# cyocl-limit
# An attribute that is no field (Cython converts the struct to a dict and
# raises AttributeError at run time).
cdef struct Vec:
    double x, y

def f(double u):
    cdef Vec p = Vec(u, 2)
    return p.z
