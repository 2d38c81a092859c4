# cdef class: typed attributes (public, readonly, private), __init__ with a
# default and keyword arguments, def methods, instances typed as the class in
# def functions, and the errors Python sees.

def origin():
    # a class used before its declaration, as Cython allows
    return Point(0.0, 0.0, label="o")


cdef class Point:
    """A point in the plane."""
    cdef public double x, y
    cdef readonly int moves
    cdef double weight
    cdef public object label

    def __init__(self, double x, double y=0.0, label=None):
        self.x = x
        self.y = y
        self.moves = 0
        self.weight = x + 2 * y
        self.label = label

    def norm2(self):
        return self.x * self.x + self.y * self.y

    def move(self, double dx, double dy=0.0):
        self.x += dx
        self.y = self.y + dy
        self.moves += 1
        return self

    def get_weight(self):
        return self.weight

    @property
    def r2(self):
        "the squared norm"
        return self.x * self.x + self.y * self.y


cdef class Counter:
    cdef public long n
    cdef public Point last
    cdef public list seen
    cdef int hist[4]

    def add(self, Point p not None, long k=1):
        self.n += k
        self.last = p
        if self.seen is None:
            self.seen = []
        self.seen.append(k)
        self.hist[k % 4] += 1
        return self.n

    def histogram(self):
        return [self.hist[i] for i in range(4)]


def midpoint(Point a, Point b):
    cdef Point m = Point((a.x + b.x) / 2, (a.y + b.y) / 2)
    m.label = "mid"
    return m


def total_x(list points):
    cdef double s = 0
    cdef Point p
    for o in points:
        p = o
        s += p.x
    return s


def maybe(Point p=None):
    if p is None:
        return -1.0
    return p.norm2()
