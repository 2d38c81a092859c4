import math
import numpy as np


def escape(z, c, maxit):
    for k in range(maxit):
        if z.real * z.real + z.imag * z.imag > 4.0:
            return k
        z = z * z + c
    return maxit


def mix(a, b):
    return a * b.conjugate() - 0.5j * a + b / (a + 3.0)


def check(mod):
    # the Julia set: integer escape counts, from the exact complex products
    w, h, c, maxit = 48, 32, complex(-0.8, 0.156), 60
    got = mod.julia(w, h, c, maxit)
    ref = np.array([[escape((-1.5 + 3.0 * x / w) + (-1.0 + 2.0 * y / h) * 1j, c, maxit) for x in range(w)]
                    for y in range(h)], dtype=np.intc)
    assert np.array_equal(got, ref), np.argwhere(got != ref)[:5]

    rng = np.random.default_rng(28)
    n = 3001
    a = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    b = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    b[::7] = a[::7]
    t = mod.total_abs(a)
    assert math.isclose(t, sum(abs(z) for z in a), rel_tol=1e-12), t

    # + - * / exactly as C (Python's complex product and quotient are C's
    # for values this size); abs() only within the ULP bound
    wv = complex(0.75, -1.25)
    out = np.zeros(n, dtype=np.complex128)
    parts = np.zeros(n)
    mod.arith(a, b, wv, out, parts)
    for i in range(n):
        ai, bi = complex(a[i]), complex(b[i])
        z = ai * wv + bi.conjugate() / (ai + 2j)
        acc = complex(1)
        for k in range(3):
            acc = acc * z
            acc = acc + 0.25
        acc = acc - bi
        acc = acc / 2.0
        if ai == bi or z != z:
            acc = -acc
        z = complex(7.5, z.imag)
        exp = mix(acc, z) + z
        assert complex(out[i]) == exp, (i, out[i], exp)
        assert parts[i] == (-ai).imag + ai.real * 2, (i, parts[i])

    q = np.zeros(n, dtype=np.complex128)
    mod.quotients(a, b, q)
    assert all(complex(q[i]) == complex(a[i]) / complex(b[i]) for i in range(n))
    bz = b.copy()
    bz[100] = 0
    try:
        mod.quotients(a, bz, q)
    except ZeroDivisionError as e:
        assert "division" in str(e), e
    else:
        raise AssertionError("no ZeroDivisionError")

    fa, fb = a.astype(np.complex64), b.astype(np.complex64)
    fo = np.zeros(n, dtype=np.complex64)
    mod.single(fa, fb, fo)
    assert np.allclose(fo, (fa * fb + fa) / fb - 1j, rtol=1e-4, atol=1e-4)

    sq = np.zeros(n, dtype=np.complex128)
    mod.squares(a, sq)
    assert np.allclose(sq, a * a, rtol=1e-14)
