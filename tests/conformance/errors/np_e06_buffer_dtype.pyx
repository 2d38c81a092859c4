# expect-error: 5:18 buffers of Python objects are not supported by cyocl
# cyocl-limit: valid Cython (an ndarray of object dtype); cyocl has no object buffers
cimport numpy as np

def f(np.ndarray[object, ndim=1] a):
    return a[0]
