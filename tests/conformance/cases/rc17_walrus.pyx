"""Assignment expressions (PEP 572) as real code uses them: a regex match
tested and used, a read loop, a filter that keeps what it computed, a
running total, in C-typed nogil code too, and at module level."""
import re

PAIR = re.compile(r"(\w+)=(\d+)")

def settings(lines):
    out = {}
    for line in lines:
        if (m := PAIR.match(line)) is not None:
            out[m.group(1)] = int(m.group(2))
    return out

def read_blocks(data, int size):
    blocks = []
    cdef Py_ssize_t pos = 0
    while (block := data[pos:pos + size]):
        blocks.append(block)
        pos += size
    return blocks

def keep_big(xs, double limit):
    return [y for x in xs if (y := x * x) > limit]

def last_kept(xs):
    kept = [v for x in xs if (v := x - 1) > 0]
    return kept, v

cdef long thresholded(long[:] a, long t) noexcept nogil:
    cdef long total = 0, x
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        if (x := a[i] * 3) > t:
            total += x
    return total

def run_thresholded(long[:] a, long t):
    return thresholded(a, t)

def first_over(words, int n):
    cdef int k
    for w in words:
        if (k := len(w)) > n:
            return w, k
    return None, k

def typed_total(double a, double b):
    cdef double s
    scaled = (s := a + b) * 2
    return s, scaled

if (found := PAIR.search("x: depth=12")) is not None:
    DEPTH = int(found.group(2))

def tail_pair(double[:] a):
    cdef double[:] v
    if (v := a[1:]).shape[0] > 1:
        return v[0] + v[1], len(v)
    return 0.0, len(v)
