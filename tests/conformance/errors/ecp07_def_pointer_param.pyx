# expect-error: 2:7 Cannot convert Python object argument
def f(double *p):
    return p[0]
