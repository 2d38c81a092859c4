# expect-error: 7:10 invalid use of fused types
ctypedef fused real_t:
    float
    double

def f(double x):
    cdef real_t y = x
    return y
