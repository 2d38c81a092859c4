# expect-error: 6:6 fused types not allowed here
ctypedef fused real_t:
    float
    double

cdef real_t g = 1
