# expect-error: 3:17 Cannot assign default value to fields in cdef classes, structs or unions
cdef class A:
    cdef double x = 1.0
