# expect-error: 8:12 no suitable method found
from cython cimport floating

cdef floating twice(floating x):
    return x * 2

def f(o):
    return twice(o)
