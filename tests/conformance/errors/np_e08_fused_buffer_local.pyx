# expect-error: 8:21 invalid use of fused types
# A fused ndarray buffer dtype needs a function with a fused argument
# (np.ndarray[floating, ndim=1] as an argument is specialised: f03_fused_ndarray).
cimport numpy as np
from cython cimport floating

def first(a):
    cdef np.ndarray[floating, ndim=1] b = a
    return b[0]
