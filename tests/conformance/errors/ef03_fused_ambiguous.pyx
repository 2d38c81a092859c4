# expect-error: 9:12 ambiguous overloaded method
cimport cython

cdef cython.floating twice(cython.floating x) noexcept nogil:
    return x * 2

def f(int i):
    # an int converts as well to float as to double
    return twice(i)
