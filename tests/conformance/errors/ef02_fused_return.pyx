# expect-error: 6:6 return type is not specified as argument type
ctypedef fused real_t:
    float
    double

cdef real_t f(double x):
    return x
