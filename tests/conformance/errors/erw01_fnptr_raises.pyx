# expect-error: 12:9 which can raise an exception
# A function that can raise (1 / x: ZeroDivisionError) cannot be called
# through a noexcept function pointer: Cython rejects the assignment
# ("Cannot assign type 'double (double) except? -1' to 'unary_t'").
ctypedef double (*unary_t)(double) noexcept nogil

cdef double inverse(double x):
    return 1 / x

def f(double v):
    cdef unary_t p
    p = inverse
    return p(v)
