# expect-error: 6:12 argument unpacking
# Cython: "Non-trivial keyword arguments and starred arguments not allowed in cdef functions."
cdef double f(double a, double b):
    return a + b
def g(t):
    return f(*t)
