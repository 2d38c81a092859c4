# difftest finding: abs() of the most negative C int
from libc.stdint cimport int32_t
def f(int32_t a):
    return abs(a)
