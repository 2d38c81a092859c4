# Slices of a C array or pointer, as Cython's tutorial writes its prime
# sieve: p[:n] iterated by a for loop (with else) and in a comprehension,
# slices of a fixed-size array and of a malloc'd buffer iterated in loops
# and comprehensions (where Cython accepts them).
from libc.stdlib cimport malloc, free


def first_primes(int count):
    cdef int n, k, found
    cdef int[500] p
    count = min(count, 500)
    found = 0
    n = 2
    while found < count:
        for k in p[:found]:
            if n % k == 0:
                break
        else:
            p[found] = n
            found += 1
        n += 1
    return [q for q in p[:found]]


def windows(int start, int stop):
    cdef double[6] v = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    cdef double *buf = <double *> malloc(4 * sizeof(double))
    cdef int i
    cdef double x, t = 0
    for i in range(4):
        buf[i] = i * i
    for x in buf[1:4]:
        t += x
    try:
        return [x for x in v[start:stop]], [x * 2 for x in v[4:6]], [x for x in buf[:4]], t
    finally:
        free(buf)
