# expect-error: 5:9 Special method __len__ has wrong number of arguments (2 declared, 1 expected)
cdef class Bag:
    cdef int n
    # len() passes no argument: the slot's signature is fixed
    def __len__(self, x):
        return self.n
