# expect-error: 4:32 Too many buffer options
cimport numpy as np

def f(np.ndarray[np.float64_t, 2] a):
    return a[0, 0]
