# expect-error: 7:33 Deletion of non-Python, non-C++ object
# The 'as' target of an except clause is deleted when the handler ends.
def f(x):
    cdef int e = 0
    try:
        y = 1 / x
    except ZeroDivisionError as e:
        y = 0
    return y
