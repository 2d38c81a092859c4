import ctypes
import ctypes.util
import math
import numpy as np


class _C(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.cpow.restype = _C
_libm.cpow.argtypes = [_C, _C]


def cpow(a, b):
    # glibc's cpow, as Cython's __Pyx_c_pow_double (x86-64: a double
    # complex travels as a struct of two doubles)
    z = _libm.cpow(_C(a, 0.0), _C(b, 0.0))
    return complex(z.re, z.im)


def same(x, y):
    return x == y or (math.isnan(x) and math.isnan(y))


def check(mod):
    for a, b in ((2.0, 0.5), (10.0, 0.3), (-8.0, 1 / 3), (-8.0, 2.0), (0.0, -1.0), (-2.0, 0.5), (1.5, -2.5),
                 (1.0, float("nan"))):
        z = cpow(a, b)
        got = mod.as_object(a, b)
        if z.imag != 0 or math.isnan(z.imag):
            assert type(got) is complex and same(got.real, z.real) and same(got.imag, z.imag), (a, b, got, z)
            try:
                mod.in_expr(a, b)
            except TypeError:
                pass
            else:
                raise AssertionError("no TypeError for %r ** %r in an expression" % (a, b))
        else:
            assert type(got) is float and got == z.real, (a, b, got, z)
            assert mod.in_expr(a, b) == z.real + 1.0, (a, b, mod.in_expr(a, b), z)
        d = mod.direct(a, b)
        with np.errstate(all="ignore"):
            want = float(np.power(np.float64(a), b))  # C's pow
        assert same(d, want), (a, b, d, want)
    assert math.isnan(mod.with_cpow(-8.0, 1 / 3)) and mod.with_cpow(2.0, 0.5) == math.pow(2.0, 0.5) + 1.0
    x = np.linspace(0.1, 5.0, 200)
    out = np.zeros_like(x)
    out2 = np.zeros_like(x)
    mod.kernel(x, 1.7, out, out2)
    want = np.array([cpow(v, 1.7).real * 2.0 + v ** 2.0 for v in x])
    assert (out == want).all(), [(v, g, w) for v, g, w in zip(x, out, want) if g != w][:3]
    assert (out2 == np.array([math.pow(v, 1.7) for v in x])).all()
    x[57] = -1.0
    try:
        mod.kernel(x, 1.7, out, out2)
    except TypeError as e:
        assert "non-zero imaginary" in str(e), e
    else:
        raise AssertionError("no TypeError for (-1.0) ** 1.7 in the prange")
    out = np.zeros_like(x)
    mod.plain(x, out)
    assert np.allclose(out, 2.0 ** x + x ** 3 + x ** -2.0, rtol=1e-14)
