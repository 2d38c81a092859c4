import numpy as np


def raises(exc, words, f, *args):
    try:
        f(*args)
    except exc as e:
        assert words in str(e), (words, str(e))
        return
    raise AssertionError(f"{f.__name__} did not raise {exc.__name__}")


def check(mod):
    rng = np.random.default_rng(7)
    for n, d in ((1, 1), (7, 3), (300, 5)):
        X = rng.random((n, d))
        D = mod.pairwise(X)
        ref = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
        assert isinstance(D, np.ndarray) and D.shape == (n, n)
        assert np.allclose(D, ref, rtol=1e-12, atol=1e-12), n
    # strided 2-D input is fine for the default (strided) mode
    Xs = rng.random((40, 6))[::2, ::3]
    assert np.allclose(mod.pairwise(Xs), np.sqrt(((Xs[:, None] - Xs[None]) ** 2).sum(-1)))

    a = rng.random((50, 9))
    w = rng.random(50)
    exp = a * w[:, None]
    mod.scale_rows(a, w)
    assert np.allclose(a, exp, rtol=1e-14)
    mod.scale_rows(a, w[::-1].copy())  # a 1-D strided mode accepts any layout
    raises(ValueError, "ndarray is not C-contiguous", mod.scale_rows, np.ones((4, 4))[:, ::2], np.ones(4))

    x = rng.random(10001, dtype=np.float32)
    assert np.isclose(mod.total(x), x.astype(np.float64).sum(), rtol=1e-10)
    assert mod.total(np.zeros(0, np.float32)) == 0.0

    m = rng.integers(-1000, 1000, size=(37, 11)).astype(np.int32)
    got = mod.col_sums(np.asfortranarray(m))
    assert got.dtype == np.int64 and np.array_equal(got, m.sum(axis=0))
    raises(ValueError, "ndarray is not Fortran contiguous", mod.col_sums, np.ascontiguousarray(m))

    ro = np.arange(5.0)
    ro.flags.writeable = False
    assert mod.first(ro) == 4.0
    ro2 = np.ones((3, 3))
    ro2.flags.writeable = False
    raises(ValueError, "read-only", mod.scale_rows, ro2, np.ones(3))

    # Cython's checks when the call is made
    raises(ValueError, "Buffer dtype mismatch, expected 'DTYPE_t' but got 'float'", mod.pairwise,
           np.ones((2, 2), np.float32))
    raises(ValueError, "Buffer has wrong number of dimensions (expected 2, got 1)", mod.pairwise, np.ones(3))
    raises(ValueError, "Buffer dtype mismatch, expected 'double' but got 'long'", mod.first, np.arange(3))
    raises(ValueError, "Buffer dtype mismatch, expected 'int32_t' but got 'long'", mod.col_sums,
           np.ones((2, 2), np.int64, order="F"))
    raises(TypeError, "Argument 'X' has incorrect type (expected numpy.ndarray, got list)", mod.pairwise,
           [[1.0, 2.0]])
    # None is accepted; indexing it raises IndexError (boundscheck on)
    raises(IndexError, "Out of bounds on buffer access (axis 0)", mod.first, None)
