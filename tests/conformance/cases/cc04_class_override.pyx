# cdef/cpdef methods overridden in subclasses: a call through a variable
# typed as the base runs the version of the instance's class (Cython's
# vtable), exceptions included; an override calling its base's explicitly.
cdef class Shape:
    cdef double s
    def __init__(self, double s):
        self.s = s
    cpdef double area(self):
        return 0.0
    cdef double per(self, int k) except -1:
        if k < 0:
            raise ValueError("neg")
        return 0.0
    cdef void bump(self) noexcept:
        self.s += 1
    def report(self):
        self.bump()
        return self.area(), self.per(2)

cdef class Square(Shape):
    cpdef double area(self):
        return self.s * self.s
    cdef double per(self, int k) except -1:
        return 4 * self.s * k
    def sides(self):
        return 4

cdef class Cube(Square):
    cpdef double area(self):
        return 6 * Square.area(self)
    cdef void bump(self) noexcept:
        self.s += 10

cdef class Circle(Shape):
    cdef double per(self, int k) except -1:
        if k > 5:
            raise ValueError("big")
        return 6.28 * self.s * k

def total(list shapes):
    cdef double t = 0
    cdef Shape sh
    for o in shapes:
        sh = o
        t += sh.area() + sh.per(1)
    return t

def per_of(Shape sh, int k):
    return sh.per(k)
