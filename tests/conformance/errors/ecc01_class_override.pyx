# expect-error: 12:18 Signature not compatible with previous declaration
cdef class Shape:
    cdef double w

    cpdef double area(self):
        return 0.0


cdef class Square(Shape):
    cdef double side

    cpdef double area(self, double scale):
        return self.w * self.w * scale
