# expect-error: 9:13 cdef method 'f' of 'A' used other than called is not supported by cyocl
# cyocl-limit: a cdef method as a value (Cython gives a bound C function pointer)
cdef class A:
    cdef double f(self):
        return 1.0

    def g(self):
        cdef object h
        h = self.f
        return h
