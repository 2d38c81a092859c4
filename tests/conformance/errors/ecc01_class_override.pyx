# expect-error: 12:18 overriding the cdef/cpdef method 'area' of 'Shape' is not supported by cyocl
# cyocl-limit: Cython dispatches cdef/cpdef methods through the instance's class (a vtable)
cdef class Shape:
    cdef double w

    cpdef double area(self):
        return 0.0


cdef class Square(Shape):

    cpdef double area(self):
        return self.w * self.w
