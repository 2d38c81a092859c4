# Arithmetic special methods of cdef classes, as Cython 3 calls them:
# __add__ with the instance on the left, __rmul__ reflected, __iadd__
# in place, unary __neg__/__abs__; NotImplemented falls back to Python.
from libc.math cimport sqrt
cdef class Vec:
    cdef public double x, y
    def __init__(self, double x=0, double y=0):
        self.x = x
        self.y = y
    def __add__(self, other):
        if isinstance(other, Vec):
            return Vec(self.x + (<Vec>other).x, self.y + (<Vec>other).y)
        return NotImplemented
    def __sub__(self, Vec other):
        return Vec(self.x - other.x, self.y - other.y)
    def __mul__(self, double k):
        return Vec(self.x * k, self.y * k)
    def __rmul__(self, double k):
        return Vec(self.x * k, self.y * k)
    def __truediv__(self, double k):
        return Vec(self.x / k, self.y / k)
    def __iadd__(self, Vec other):
        self.x += other.x
        self.y += other.y
        return self
    def __neg__(self):
        return Vec(-self.x, -self.y)
    def __abs__(self):
        return sqrt(self.x * self.x + self.y * self.y)
    def __eq__(self, other):
        return isinstance(other, Vec) and self.x == (<Vec>other).x and self.y == (<Vec>other).y
    def __repr__(self):
        return "Vec(%g, %g)" % (self.x, self.y)

def combo():
    a = Vec(1, 2)
    b = Vec(3, 4)
    c = a + b
    c += a
    return c, a - b, 2 * a, a * 3, b / 2, -a, abs(b), a == Vec(1, 2)
