import numpy as np


def check(mod):
    rng = np.random.default_rng(7)
    for n in (0, 1, 7, 100_000):
        a = rng.standard_normal(n)
        assert np.isclose(mod.norm(a), np.linalg.norm(a)), n
        x = rng.standard_normal(n)
        r = mod.softplus(x)
        assert isinstance(r, np.ndarray) and r.shape == (n,) and r.dtype == np.float64
        assert np.allclose(r, np.log1p(np.exp(x))), n

    x = np.arange(10.0)
    base = np.ones(20)
    y = base[::2]  # a strided view: writes must land in base
    mod.axpy(2.0, x, y)
    assert np.array_equal(base[::2], 2.0 * x + 1.0) and np.array_equal(base[1::2], np.ones(10))

    assert mod.int_ops(-7, 2) == (-4, 1)
    assert mod.int_ops(7, -2) == (-4, -1)
    try:
        mod.int_ops(1, 0)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("int_ops(1, 0) did not raise ZeroDivisionError")
    assert mod.fib(20) == 6765
    try:
        mod.norm(np.zeros(4, dtype=np.float32))
    except ValueError as e:
        assert "dtype" in str(e).lower(), e
    else:
        raise AssertionError("a float32 array was accepted as double[::1]")
