# *args and **kwargs parameters of def functions and methods, and call
# unpacking f(*args, **kwargs), with Python's TypeErrors.
def total(*args):
    cdef double s = 0
    for a in args:
        s += a
    return s, len(args)

def opts(x, **kwargs):
    return x, sorted(kwargs.items())

def mixed(a, b=2, *rest, scale=1.0, **extra):
    return a, b, rest, scale, sorted(extra.items())

def fwd(*args, **kwargs):
    return mixed(*args, **kwargs)

cdef class Model:
    cdef public double w
    def __cinit__(self, *args, **kwargs):
        self.w = 1.0
    def __init__(self, w=1.0, **params):
        self.w = w
    def predict(self, double[:] x, *more):
        cdef double s = 0
        cdef Py_ssize_t i
        for i in range(x.shape[0]):
            s += x[i] * self.w
        return s + len(more)

def zipped(rows):
    return list(zip(*rows))

def call_with(f, args, kw):
    return f(*args, **kw)

def spread(a, b, c=0):
    return a + b + c

def call_spread(t, d):
    return spread(1, *t, **d), max(*t), spread(*t, c=5)
