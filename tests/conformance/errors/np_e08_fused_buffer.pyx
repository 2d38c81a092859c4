# expect-error: 6:22 fused dtype in np.ndarray[...] is not supported by cyocl
# cyocl-limit: valid Cython; cyocl specialises fused memoryviews, not fused ndarray buffers
cimport numpy as np
from cython cimport floating

def first(np.ndarray[floating, ndim=1] a):
    return a[0]
