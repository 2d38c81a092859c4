# expect-error: 4:20 Cannot assign type 'list object' to 'tuple object'
# A list display is no tuple.
def f(a):
    cdef tuple t = [a]
    return t
