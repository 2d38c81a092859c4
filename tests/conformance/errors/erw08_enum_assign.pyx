# expect-error: 9:9 Cannot assign type 'int' to 'Color'
# Only an enum's own enumerators convert to it implicitly (Cython's error).
cdef enum Color:
    RED
    GREEN

def f(int n):
    cdef Color c = GREEN
    c = n
    return c
