"""@classmethod on cdef class methods, as alternative constructors are
written: cls is the class it is called on (a subclass's too, from the
module and from Python), through the class and through an instance."""

cdef class Interval:
    cdef public double lo, hi
    def __init__(self, double lo=0, double hi=0):
        if hi < lo:
            raise ValueError("empty interval")
        self.lo = lo
        self.hi = hi

    @classmethod
    def around(cls, double c, double r=1.0):
        """The interval [c - r, c + r]."""
        return cls(c - r, c + r)

    @classmethod
    def parse(cls, text, sep=","):
        a, b = text.split(sep)
        return cls(float(a), float(b))

    @classmethod
    def kind(cls):
        return cls.__name__

    def widened(self, double by):
        return self.around((self.lo + self.hi) / 2, (self.hi - self.lo) / 2 + by)

cdef class Closed(Interval):
    def describe(self):
        return "%s[%g, %g]" % (self.kind(), self.lo, self.hi)

def build():
    a = Interval.around(1.0)
    b = Closed.parse("2;5", sep=";")
    c = b.widened(1.0)
    return (a.lo, a.hi), Closed.kind(), type(c).__name__, c.describe(), Interval.around.__doc__
