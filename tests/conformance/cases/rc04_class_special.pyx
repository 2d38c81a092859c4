# Special methods of cdef classes as real code writes them: container
# protocol (__len__, __getitem__, __setitem__, __contains__, __iter__,
# __next__), __repr__/__str__/__bool__/__hash__/__call__, comparisons
# (__eq__ with __ne__ derived, __richcmp__), and pickling by __reduce__.
cdef class Bag:
    """A bag of doubles."""
    cdef list items
    cdef readonly int n
    def __cinit__(self):
        self.items = []
        self.n = 0
    def add(self, double v):
        self.items.append(v)
        self.n += 1
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return self.items[i]
    def __setitem__(self, i, v):
        self.items[i] = v
    def __contains__(self, v):
        return v in self.items
    def __repr__(self):
        return "Bag(%r)" % (self.items,)
    def __str__(self):
        return "bag of %d" % self.n
    def __bool__(self):
        return self.n > 0
    def __eq__(self, other):
        return isinstance(other, Bag) and (<Bag>other).items == self.items
    def __reduce__(self):
        return (_rebuild, (self.items,))
    def __call__(self, x, scale=1.0):
        return [x * scale * v for v in self.items]

def _rebuild(items):
    b = Bag()
    for v in items:
        b.add(v)
    return b

cdef class Range2:
    cdef int i, n
    def __init__(self, int n):
        self.n = n
        self.i = 0
    def __iter__(self):
        return self
    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i * 2
    def __hash__(self):
        return self.n

cdef class Ord:
    cdef double v
    def __init__(self, v): self.v = v
    def __richcmp__(self, Ord other, int op):
        if op == 0: return self.v < other.v
        if op == 2: return self.v == other.v
        if op == 4: return self.v > other.v
        return NotImplemented
