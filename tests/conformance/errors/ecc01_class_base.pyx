# expect-error: 7:14 inheritance of cdef classes is not supported by cyocl
# cyocl-limit: a cdef class deriving from another one
cdef class A:
    cdef double x


cdef class B(A):
    cdef double y
