# @staticmethod in cdef classes: cdef ones (the fast-instantiation factory
# of Cython's docs, Vec.make(...) is a C call) and def ones (Vec.origin()).
cdef class Vec:
    cdef public double x, y
    def __init__(self, double x=0, double y=0):
        self.x = x
        self.y = y
    @staticmethod
    cdef Vec make(double x, double y):
        cdef Vec v = Vec.__new__(Vec)
        v.x = x
        v.y = y
        return v
    @staticmethod
    cdef double dot(Vec a, Vec b) noexcept:
        return a.x * b.x + a.y * b.y
    @staticmethod
    def origin():
        return Vec.make(0, 0)
    @staticmethod
    def from_pair(pair, double scale=1.0):
        """Build from a pair."""
        return Vec.make(pair[0] * scale, pair[1] * scale)
    def norm2(self):
        return Vec.dot(self, self)

def build(int n):
    cdef list out = []
    cdef int i
    for i in range(n):
        out.append(Vec.make(i, 2 * i))
    return out

def total_dot(list vs):
    cdef double s = 0
    cdef Vec a
    for a in vs:
        s += Vec.dot(a, a)
    return s
