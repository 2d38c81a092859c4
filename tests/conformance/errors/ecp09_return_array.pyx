# expect-error: 2:6 Function cannot return an array
cdef double[3] g():
    pass
