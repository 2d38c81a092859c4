import numpy as np

def check(mod):
    rng = np.random.default_rng(11)
    for dt, rtol in ((np.float64, 1e-12), (np.float32, 1e-5)):
        for n in (0, 1, 257, 100_003):
            x = rng.random(n).astype(dt)
            y = rng.random(n).astype(dt)
            want = (dt(2.5) * x + y).astype(dt)
            y2 = y.copy()
            assert mod.axpy(x, y2, 2.5) is None
            assert y2.dtype == dt
            assert np.allclose(y2, want, rtol=rtol, atol=0), (dt, n)
            assert np.isclose(mod.dot(x, y), float(np.dot(x.astype(np.float64), y.astype(np.float64))), rtol=rtol), (dt, n)
        m = rng.random((67, 33)).astype(dt)
        got = mod.scaled_sum(m, 0.5)
        assert np.isclose(got, float(m.astype(np.float64).sum()) * 0.5, rtol=1e-4 if dt == np.float32 else 1e-10)
        assert mod.type_name(np.zeros(3, dt)) == ("double" if dt == np.float64 else "float")
        v = np.array([1 / 3], dt)
        assert mod.first_twice(v) == float(v[0] * dt(2))
    # a Python float is a double; a float32 array with a double array fits no signature
    assert mod.type_name(np.zeros((4, 4))[:, 1]) == "double"
    for bad in ((np.ones(3, np.int64), np.ones(3, np.int64)), (np.ones(3, np.float32), np.ones(3))):
        try:
            mod.dot(*bad)
        except (TypeError, ValueError):
            pass
        else:
            raise AssertionError("dot accepted %s" % (bad,))
    try:
        mod.dot(np.ones(3, np.int32), np.ones(3, np.int32))
    except TypeError as e:
        assert "No matching signature found" in str(e), e
    else:
        raise AssertionError("no TypeError")
    # the first real_t argument decides: a float32 array makes the scale a float
    y = np.ones(2, np.float32)
    mod.axpy(np.ones(2, np.float32), y, 1 / 3)
    assert y[0] == np.float32(1) + np.float32(1 / 3)
    assert mod.direct(1.5, 2.0) == (1.5 * 1.5 + 1.5, 6.0, 10.0)
    assert mod.with_default(np.ones(1, np.float32)) == 2.5
    assert mod.with_default(np.ones(1), 3) == 3.5
    assert mod.with_default(np.ones(1), t=1) == 3.0
