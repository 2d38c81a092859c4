import numpy as np


def raises(exc, words, f, *args):
    try:
        f(*args)
    except exc as e:
        assert words in str(e), (words, str(e))
        return
    raise AssertionError(f"{f.__name__} did not raise {exc.__name__}")


def check(mod):
    h, nd, n0, dt, item, s = mod.describe(4)
    assert isinstance(h, np.ndarray) and np.array_equal(h, [0, 2.5, 0, 0])
    assert (nd, n0, dt, item, s) == (1, 4, np.dtype(np.float64), 2.5, 2.5)

    rng = np.random.default_rng(3)
    for shape in ((1, 1), (5, 3), (257, 64)):
        a = rng.random(shape) + 0.1
        out = mod.normalise_rows(a)
        assert out is not a and out.shape == a.shape
        assert np.allclose(out, a / a.sum(axis=1)[:, None], rtol=1e-14)

    ref = np.arange(6, dtype=np.int64)
    for _ in range(3):
        ref = ref * 2 + 1
    assert np.array_equal(mod.cumulative(3, 6), ref)
    assert np.array_equal(mod.cumulative(0, 4), np.arange(4))

    a = np.arange(3.0)
    assert mod.as_ndarray(a) is a
    assert mod.as_ndarray(None) is None
    assert mod.as_ndarray(a[::2]).shape == (2,)
    raises(TypeError, "Cannot convert list to numpy.ndarray", mod.as_ndarray, [1, 2])
    raises(TypeError, "Cannot convert int to numpy.ndarray", mod.as_ndarray, 3)

    assert mod.is_none() is True and mod.is_none(None) is True and mod.is_none(np.ones(2)) is False

    m = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(mod.rows(m), m[1])

    assert mod.shape_of(np.zeros((2, 3, 5))) == (2, 5, 3)
    raises(TypeError, "Argument 'x' has incorrect type (expected numpy.ndarray, got tuple)", mod.shape_of, (1, 2))
