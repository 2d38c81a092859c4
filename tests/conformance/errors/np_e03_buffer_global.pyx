# expect-error: 4:6 Buffer types only allowed as function local variables
cimport numpy as np

cdef np.ndarray[double, ndim=1] table

def f():
    return 0
