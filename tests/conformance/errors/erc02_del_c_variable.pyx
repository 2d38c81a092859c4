# expect-error: 4:9 Deletion of non-Python, non-C++ object
def f(double[:] v):
    cdef int k = 0
    del v[k]
