# expect-error: 5:5 not supported by cyocl
# cyocl-limit: valid Cython that this compiler rejects with a clear message
ctypedef fused num_or_obj:
    double
    object

def f(num_or_obj x):
    return x
