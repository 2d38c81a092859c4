# expect-error: 10:18 type not in fused type
ctypedef fused real_t:
    float
    double

cdef real_t twice(real_t x):
    return x * 2

def f():
    return twice[int](1)
