# expect-error: 7:12 numpy's C API) is not supported by cyocl
# cyocl-limit: valid Cython; cyocl modules do not use numpy's C API
cimport numpy as np
import numpy as np

def f(np.ndarray a):
    return np.PyArray_DIMS(a)[0]
