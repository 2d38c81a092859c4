# expect-error: 4:13 C function 'half' is declared but not defined
# a forward declaration without its definition (Cython: "C function 'half' declared but not defined")

cdef double half(double x)

def f(double x):
    return half(x)
