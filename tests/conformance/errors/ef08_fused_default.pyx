# expect-error: 7:26 not supported by cyocl
# cyocl-limit: valid Cython that this compiler rejects with a clear message
ctypedef fused real_t:
    float
    double

def f(real_t x, real_t y=2.0):
    return x + y
