# difftest finding: out-of-range Python ints for C scalar parameters
from libc.stdint cimport int8_t
def f(int8_t x):
    return x
def g(long x):
    return x
