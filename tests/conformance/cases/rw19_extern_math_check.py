import math
import numpy as np


def check(mod):
    a = np.linspace(0.0, 3.0, 257)
    out = np.zeros_like(a)
    mod.special(a, out)
    want = np.array([math.erf(x) + math.gamma(x + 1) + math.hypot(x, 2.0) + math.lgamma(x + 1) - abs(x) * math.pi
                     for x in a])
    assert np.allclose(out, want, rtol=1e-12, atol=1e-12), np.abs(out - want).max()
    f = np.linspace(-2.0, 2.0, 100, dtype=np.float32)
    fo = np.zeros_like(f)
    mod.single(f, fo)
    assert np.allclose(fo, np.exp(f.astype(np.float64)), rtol=1e-6)
    b = np.zeros_like(a)
    mod.bessel(a, b)
    # J0 by its series, enough terms for |x| <= 3
    ref = np.array([sum((-1) ** k * (x / 2) ** (2 * k) / math.factorial(k) ** 2 for k in range(30)) for x in a])
    assert np.allclose(b, ref, rtol=1e-13, atol=1e-14)
    e, pi, nan = mod.serial(0.5)
    assert e == math.erf(0.5) and pi == math.pi and isinstance(nan, int)
