# expect-error: 6:28 Cannot coerce list to type 'ndarray'
cimport numpy as cnp
import numpy as np

def f():
    cdef cnp.ndarray arr = [1.0, 2.0]
    return arr
