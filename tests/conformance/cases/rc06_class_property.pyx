# Properties of cdef classes with setters and deleters: Cython's older
# 'property x:' blocks (__get__/__set__/__del__) and @x.setter/@x.deleter.
cdef class Tree:
    cdef readonly int n
    cdef double _scale
    cdef public list children
    def __init__(self, int n):
        self.n = n
        self._scale = 1.0
        self.children = []
    property size:
        """The number of nodes."""
        def __get__(self):
            return self.n
        def __set__(self, int v):
            if v < 0:
                raise ValueError("negative size")
            self.n = v
    property frozen:
        def __get__(self):
            return self.n * 2
    property erasable:
        def __get__(self):
            return len(self.children)
        def __del__(self):
            self.children = []
    @property
    def scale(self):
        return self._scale
    @scale.setter
    def scale(self, double s):
        self._scale = s
    @scale.deleter
    def scale(self):
        self._scale = 1.0
