# expect-error: 5:21 Variable name in for-from range does not match target
# The name between the relations is the loop variable.
def f(int n):
    cdef int i, j
    for i from 0 <= j < n:
        pass
    return i
