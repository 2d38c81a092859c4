# expect-error: 5:19 invalid character literal
# c'...' is one character (Cython: "invalid character literal: b'ab'")

def f():
    cdef char a = c'ab'
    return a
