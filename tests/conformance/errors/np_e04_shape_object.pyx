# expect-error: 5:12 Cannot convert 'npy_intp *' to Python object
cimport numpy as np

def f(np.ndarray[double, ndim=2] a):
    return a.shape
