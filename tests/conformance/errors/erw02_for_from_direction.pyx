# expect-error: 5:23 Relation directions in for-from do not match
# A for-from loop counts one way: both relations point the same direction.
def f(int n):
    cdef int i
    for i from 0 <= i > n:
        pass
    return i
