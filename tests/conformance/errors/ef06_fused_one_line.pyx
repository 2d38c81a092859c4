# expect-error: 2:24 invalid syntax
ctypedef fused real_t: float, double

def f(real_t x):
    return x
