# expect-error: 4:5 not supported by cyocl
# cyocl-limit: valid Cython that this compiler rejects with a clear message
ctypedef fused vec_t:
    float[:]
    double[:]

def f(vec_t x):
    return x.shape[0]
