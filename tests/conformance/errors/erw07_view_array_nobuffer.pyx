# expect-error: 6:9 cython.view.array is supported by cyocl as array(shape=(...), itemsize=..., format=...[, mode='c' or 'fortran' with a literal numeric format]) only
# cyocl-limit
# A cython.view.array without its own buffer (allocate_buffer=False).
from cython.view cimport array as cvarray
def f(int n):
    a = cvarray(shape=(n, n), itemsize=8, format='d', mode='fortran', allocate_buffer=False)
    return a
