import ctypes
import ctypes.util
import math
import numpy as np


class _C(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


class _F(ctypes.Structure):
    _fields_ = [("re", ctypes.c_float), ("im", ctypes.c_float)]


_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.cpow.restype = _C
_libm.cpow.argtypes = [_C, _C]


def cpow(a, b):
    # glibc's cpow (x86-64: a double complex travels as a struct of two doubles)
    z = _libm.cpow(_C(a.real, a.imag), _C(b.real, b.imag))
    return complex(z.re, z.im)


def soft(z):
    return complex(z) if z.imag != 0 or math.isnan(z.imag) else z.real


def same(x, y):
    if type(x) is not type(y):
        return False
    if isinstance(x, float):
        return x == y or (math.isnan(x) and math.isnan(y))
    return same(x.real, y.real) and same(x.imag, y.imag)


def check(mod):
    for z, w in ((-8 + 0j, 1 / 3 + 0j), (1 + 2j, 2 + 0j), (3 - 1j, 0.5 + 0.5j), (0j, 2 + 0j), (2 + 0j, -1 + 0j),
                 (-1.5 - 0.25j, -2.5 + 1j)):
        got = mod.as_object(z, w)
        want = (soft(cpow(z, w)), cpow(z, 2 + 0j), soft(cpow(z, 0.5 + 0j)), cpow(z, -1 + 0j))
        assert all(same(g, x) for g, x in zip(got, want)), (z, w, got, want)
    z = np.array([1 + 2j, -3 + 0.5j, 0.1 - 0.7j, -2 + 0j, 0j])
    out = np.zeros_like(z)
    mod.loop(z, out)
    want = [cpow(v, 2 + 0j) + cpow(v, 3 + 0j) + cpow(v, 0.5 + 0.25j) for v in z]
    assert all(same(complex(g), w) for g, w in zip(out, want)), (out.tolist(), want)
    r = mod.single(-8 + 0j, 1 / 3 + 0j)
    assert abs(r - (1 + 1.7320508j)) < 1e-5, r
