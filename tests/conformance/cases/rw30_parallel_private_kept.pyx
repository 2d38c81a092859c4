# expect-opencl: yes
# A variable assigned in a parallel() block is private to each thread: after
# the block it keeps the value it had before it (OpenMP discards the private
# copies).  Reading it there on a path that may assign it first is valid
# Cython; the value on the other paths is the one from before the block,
# also when the block holds only a prange that an OpenCL kernel could run.
from cython.parallel import parallel, prange


def kept(int n, int c, int[:] v):
    cdef int x = 0
    cdef int i
    with nogil, parallel():
        x = n * 2
        for i in prange(n):
            v[i] = x + i
    if c:
        x = 5
    return x


def scaled(int n, int[:] v):
    cdef int x
    cdef int i
    with nogil, parallel():
        x = n * 3
        for i in prange(n):
            v[i] = x - i
    return v[0]
