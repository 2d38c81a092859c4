# expect-error: 6:9 cython.view.array is supported by cyocl as array(shape=(...), itemsize=..., format=...[, mode='c']) only
# cyocl-limit
# A Fortran-ordered cython.view.array.
from cython.view cimport array as cvarray
def f(int n):
    a = cvarray(shape=(n, n), itemsize=8, format='d', mode='fortran')
    return a
