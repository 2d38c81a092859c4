# expect-error: 4:5 include statement not allowed here
# Cython: the same message (an include stands at module level only)
def f(xs):
    include "erc07_no_such_file.pxi"
    return xs
