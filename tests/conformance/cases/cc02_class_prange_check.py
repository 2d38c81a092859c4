import gc

import numpy as np


def check(m):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((37, 19))
    b = rng.standard_normal(37)
    x = rng.standard_normal(19)
    base = m.alive_count()
    layer = m.Layer(w.copy(), b)
    assert m.alive_count() == base + 1
    assert layer.scale == 1.0 and (layer.n_out, layer.n_in) == (37, 19)
    assert np.array_equal(np.asarray(layer.b), b)
    layer.scale = 2.0
    ref = 2.0 * (w @ x + b)
    out = np.empty(37)
    got = np.asarray(layer.forward(x, out))
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)
    y = np.asarray(m.run(layer, x))
    assert np.allclose(y, np.where(ref > 0, ref, 0.01 * ref), rtol=1e-12, atol=1e-12)
    assert np.isclose(layer.wsum(), w.sum(), rtol=1e-12)
    assert np.isclose(layer.total(), w.sum() + b.sum(), rtol=1e-12)
    layer.rescale(0.5)
    assert layer.scale == 4.0
    assert np.allclose(np.asarray(layer.forward(x, out)), 4.0 * (0.5 * w @ x + b), rtol=1e-12, atol=1e-12)
    try:
        layer.b = b
        raise AssertionError("readonly b was set")
    except AttributeError:
        pass
    try:
        layer.w
        raise AssertionError("private w was read")
    except AttributeError:
        pass
    try:
        m.Layer(np.zeros((2, 3), dtype=np.float32), b)
        raise AssertionError("float32 accepted")
    except ValueError:
        pass
    gc.collect()
    del layer
    gc.collect()
    assert m.alive_count() == base, (m.alive_count(), base)
    return float(y.sum())
