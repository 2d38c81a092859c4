# expect-error: 3:9 'erc07_no_such_file.pxi' not found
# Cython: the same message
include "erc07_no_such_file.pxi"

def f():
    return 1
