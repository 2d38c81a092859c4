# expect-error: 5:14 a base class other than a cdef class declared before in the module is not supported by cyocl
# cyocl-limit: cdef classes derive only from cdef classes of the same module
import collections

cdef class D(collections.OrderedDict):
    cdef int n
