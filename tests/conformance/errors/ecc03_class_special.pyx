# expect-error: 6:9 special method '__getattr__' of a cdef class is not supported by cyocl
# cyocl-limit: attribute hooks and the other special methods cyocl does not fill
cdef class V:
    cdef public double x

    def __getattr__(self, name):
        return self.x
