"""C scalar types as Cython spells them, with C's (LP64) conversion rules."""
import numpy as np


class CT:
    def __init__(self, name, npname, kind, bits, signed, rank, stdint=False):
        self.name, self.npname, self.kind = name, npname, kind
        self.bits, self.signed, self.rank, self.stdint = bits, signed, rank, stdint
        if kind == "i":
            self.min = -(1 << (bits - 1)) if signed else 0
            self.max = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        else:
            self.min, self.max = -np.inf, np.inf
            self.mant = 24 if bits == 32 else 53

    @property
    def dtype(self):
        return np.dtype(self.npname)

    def wrap(self, v):
        """Conversion of an integer to this type (gcc: modular)."""
        m = 1 << self.bits
        v &= m - 1
        if self.signed and v >= 1 << (self.bits - 1):
            v -= m
        return v

    def fits(self, v):
        return self.min <= v <= self.max

    def __repr__(self):
        return self.name


def _mk():
    t = {}
    def add(*a, **k):
        c = CT(*a, **k)
        t[c.name] = c
    # stdint typedefs (glibc LP64: int64_t is long)
    add("int8_t", "int8", "i", 8, True, 1, stdint=True)
    add("int16_t", "int16", "i", 16, True, 2, stdint=True)
    add("int32_t", "int32", "i", 32, True, 3, stdint=True)
    add("int64_t", "int64", "i", 64, True, 4, stdint=True)
    add("uint8_t", "uint8", "i", 8, False, 1, stdint=True)
    add("uint16_t", "uint16", "i", 16, False, 2, stdint=True)
    add("uint32_t", "uint32", "i", 32, False, 3, stdint=True)
    add("uint64_t", "uint64", "i", 64, False, 4, stdint=True)
    # plain C spellings
    add("signed char", "byte", "i", 8, True, 1)
    add("short", "short", "i", 16, True, 2)
    add("int", "intc", "i", 32, True, 3)
    add("long", "int_", "i", 64, True, 4)
    add("long long", "longlong", "i", 64, True, 5)
    add("unsigned char", "ubyte", "i", 8, False, 1)
    add("unsigned short", "ushort", "i", 16, False, 2)
    add("unsigned int", "uintc", "i", 32, False, 3)
    add("unsigned long", "uint", "i", 64, False, 4)
    add("unsigned long long", "ulonglong", "i", 64, False, 5)
    add("Py_ssize_t", "intp", "i", 64, True, 4)
    add("size_t", "uintp", "i", 64, False, 4)
    # numpy's typedefs through `cimport numpy as cnp`: C sees npy_int64 as long on LP64, Cython's
    # numpy/__init__.pxd declares it long long (the rank its typing uses)
    add("cnp.int64_t", "int64", "i", 64, True, 4)
    add("cnp.uint64_t", "uint64", "i", 64, False, 4)
    add("cnp.intp_t", "intp", "i", 64, True, 4)
    add("cnp.int32_t", "int32", "i", 32, True, 3)
    add("cnp.uint8_t", "uint8", "i", 8, False, 1)
    add("float", "float32", "f", 32, True, 10)
    add("double", "float64", "f", 64, True, 11)
    return t


T = _mk()
INT = T["int"]
DOUBLE = T["double"]
FLOAT = T["float"]
SSIZE = T["Py_ssize_t"]
INT_TYPES = [c for c in T.values() if c.kind == "i"]
FLOAT_TYPES = [FLOAT, DOUBLE]
ALL_TYPES = list(T.values())
STDINT = [c.name for c in T.values() if c.stdint]

_UNSIGNED_OF = {1: "unsigned char", 2: "unsigned short", 3: "unsigned int",
                4: "unsigned long", 5: "unsigned long long"}


def promote(t):
    if t.kind == "f" or t.rank >= 3:
        return t
    return INT


def arith(a, b):
    """The usual arithmetic conversions."""
    if a.kind == "f" or b.kind == "f":
        if a is DOUBLE or b is DOUBLE:
            return DOUBLE
        return FLOAT
    a, b = promote(a), promote(b)
    if a.signed == b.signed:
        return a if a.rank >= b.rank else b
    u, s = (a, b) if not a.signed else (b, a)
    if u.rank >= s.rank:
        return u
    if s.bits > u.bits:
        return s
    return T[_UNSIGNED_OF[s.rank]]
