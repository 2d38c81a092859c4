# expect-warning: 25:8 'at' is read after the prange of line 20, whose body may break
# expect-warning: 34:12 'i' is read after the prange of line 31, whose body may break
# After a break out of a prange, Cython's lastprivates hold what the thread
# owning the loop's last iteration had: with two threads and the only
# negative value in the first half, find_first_negative's `at` is still -1
# in Cython's build (the second thread never assigned it), the breaking
# index in cyocl's. Valid Cython: a warning where such a value is read after
# the loop; none where the body does not break, where the value is
# assigned again first, or where a shared array element carries the result.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange


def find_first_negative(const double[::1] v, long[::1] hit):
    cdef Py_ssize_t i, j
    cdef Py_ssize_t at = -1
    cdef double last = 0
    with nogil:
        hit[0] = -1
        for i in prange(v.shape[0]):
            if v[i] < 0:
                at = i
                hit[0] = i
                break
    if at >= 0:
        return True
    for j in prange(v.shape[0], nogil=True):
        last = v[j]
    at = 0
    x = at + last + j
    for i in prange(v.shape[0], nogil=True):
        if v[i] > 1e300:
            break
    return i + x
