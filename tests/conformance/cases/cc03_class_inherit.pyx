# cdef class inheritance: a subclass's struct begins with its base's, its
# attributes, cdef/cpdef/def methods and properties are inherited, __cinit__
# runs base first and __dealloc__ subclass first, def methods override as in
# Python, an instance of the subclass passes where the base is typed.
from cython.parallel import prange

log = []


cdef class Shape:
    cdef public object name
    cdef double[::1] w
    cdef readonly int sides

    def __cinit__(self, *args, **kwargs):
        log.append("Shape.cinit")

    def __init__(self, name, double[::1] w):
        self.name = name
        self.w = w

    cdef double scale(self) noexcept nogil:
        return 2.0

    cpdef double area(self):
        return 0.0

    def weighted(self):
        cdef double s = 0
        cdef Py_ssize_t i
        for i in prange(self.w.shape[0], nogil=True):
            s += self.w[i] * self.scale()
        return s

    def describe(self):
        return "%s %.1f" % (self.name, self.area())

    def __dealloc__(self):
        log.append("Shape.dealloc")


cdef class Rect(Shape):
    cdef public double wd, ht

    def __cinit__(self, *args, **kwargs):
        log.append("Rect.cinit")
        self.sides = 4

    def __init__(self, double wd, double ht, double[::1] w):
        Shape.__init__(self, "rect", w)
        self.wd = wd
        self.ht = ht

    def big(self):
        cdef Py_ssize_t i
        cdef double t = 0
        for i in prange(self.w.shape[0], nogil=True):
            t += self.w[i] * self.wd
        return t * self.ht * self.scale()

    def describe(self):
        return "R:" + Shape.describe(self)

    def __dealloc__(self):
        log.append("Rect.dealloc")


def area_of(Shape s):
    return s.area()


def name_of(Rect r):
    cdef Shape s = r
    return s.name
