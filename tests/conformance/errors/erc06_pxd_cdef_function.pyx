# expect-error: 4:42 cimport of the cdef function 'scale' of module 'erc06_pxd_cdef_function_lib'
# cyocl-limit: a cdef function another module defines (cyocl builds one module at a time)
# erc06_pxd_cdef_function_lib.pxd beside this file declares scale() and a ctypedef
from erc06_pxd_cdef_function_lib cimport scale, real_t

def f(real_t x):
    return scale(x)
