# expect-error: 6:9 special method '__add__' of a cdef class is not supported by cyocl
# cyocl-limit: arithmetic and other special methods of cdef classes
cdef class V:
    cdef public double x

    def __add__(self, other):
        return self.x + other.x
