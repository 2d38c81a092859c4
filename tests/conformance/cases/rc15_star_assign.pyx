"""Starred assignment (PEP 3132) as real code writes it: the head and the
rest of a row, the last item split off, at module level too, into typed and
untyped targets; too short a sequence is Cython's ValueError."""

HEAD, *TAIL = (10, 20, 30)

def split_row(row):
    first, *rest = row
    return first, rest

def split_last(seq):
    *init, last = seq
    return init, last

def middle(seq):
    a, *mid, z = seq
    return a, mid, z

def typed(list xs):
    cdef double x0
    cdef int n
    x0, *others = xs
    n = len(others)
    return x0 * 2, n

def parse_lines(lines):
    out = {}
    for line in lines:
        key, *vals = line.split()
        out[key] = [float(v) for v in vals]
    return out

def table(rows):
    out = []
    for name, *cells, total in rows:
        out.append((name, len(cells), total))
    else:
        out.append("end")
    return out
