# Iterating a memoryview of 2 or more dimensions, as Cython iterates its
# memoryview object: the sub-views along the first axis (as Python objects
# they are memoryviews here, Cython's own memoryview type there), into an
# untyped name or a typed 1-D view; of a slice; with break and else; a
# None view is Cython's TypeError.
# cython: boundscheck=False


def rows(double[:, :] m):
    out = []
    for row in m:
        out.append((len(row), row[1], list(row)))
    return out


def typed(double[:, ::1] m, double stop):
    cdef double s = 0
    cdef double[:] r
    for r in m[::2]:
        if r[0] >= stop:
            break
        s += r[0] * 2 + r[r.shape[0] - 1]
    else:
        s = -s
    return s, r[0]


def deep(int[:, :, :] c):
    cdef int t = 0
    cdef int[:, :] plane
    for plane in c:
        t = t * 10 + plane[1, 0]
    return t


def count(double[:, :] m=None):
    n = 0
    for r in m:
        n += 1
    return n
