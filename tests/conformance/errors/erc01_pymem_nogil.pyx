# expect-error: 8:13 Calling gil-requiring function not allowed without gil
# cpython.mem declares PyMem_Malloc without nogil (PyMem_RawMalloc with it)
from cpython.mem cimport PyMem_Malloc, PyMem_RawMalloc
def f(int n):
    cdef void *p
    with nogil:
        p = PyMem_RawMalloc(n)
        p = PyMem_Malloc(n)
