# Module-level cdef variables in prange, classified as Cython 3.3 does
# (issue 15 item 2): an in-place operator makes a reduction, an assignment a
# lastprivate, a read a shared variable.
from cython.parallel import prange

cdef long total = 0
cdef double prod = 1.0
cdef unsigned long bits = 0
cdef long last = -1
cdef long scale = 3
cdef long rounds = 0

# The functions that only read or reset the globals come first: Cython 3.3
# reports "local variable 'total' referenced before assignment" for a read
# of a module global in a function that follows one reducing it in a prange
# (a Cython bug, which cyocl does not copy; the reference build needs this
# order).
def doc_sum():
    return sum


def doc_index():
    return i


def reset(long v):
    global total, prod, bits, last, rounds
    total = v
    prod = 1.0
    bits = 0
    last = -1
    rounds = 0


def get():
    return total, prod, bits, last, rounds


# Cython's documentation example (userguide/parallelism, simple_sum.pyx),
# run at import: module globals, prange at module level.
cdef int i
cdef int n = 30
cdef int sum = 0

for i in prange(n, nogil=True):
    sum += i

print(sum)


def add_range(long n):
    global total
    cdef long i
    for i in prange(n, nogil=True):
        total += i
    return total


def add_range_threads(long n, int nt):
    global total
    cdef long i
    for i in prange(n, nogil=True, num_threads=nt, schedule='dynamic', chunksize=7):
        total += i * scale
    return total


def mixed(long n):
    # several globals at once: *, |, lastprivate, and a local reduction
    # beside them; the globals are read again after the loop
    global prod, bits, last, rounds
    cdef long i
    cdef long s = 0
    for i in prange(n, nogil=True):
        prod *= 1.0 + (i % 2) * 0.5
        bits |= 1UL << (i % 60)
        last = i * scale
        s += 1
    rounds += 1
    return s, prod, bits, last
