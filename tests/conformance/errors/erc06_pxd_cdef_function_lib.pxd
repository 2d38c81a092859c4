ctypedef double real_t

cdef real_t scale(real_t x)
