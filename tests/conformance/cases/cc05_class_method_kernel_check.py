import numpy as np


def check(m):
    xs = np.linspace(-3.0, 5.0, 301)
    offs = np.array([0.5, -0.25, 1.0])
    L = m.Logistic(1.5, 0.5, 2.0, offs)
    ref = 2.0 / (1.0 + np.exp(-1.5 * (xs - 0.5)))
    out = np.empty_like(xs)
    assert np.allclose(np.asarray(L.curve(xs, out)), ref, rtol=1e-14, atol=1e-15)
    sh = np.asarray(L.shifted(xs, np.empty_like(xs)))
    assert np.allclose(sh, ref + offs[np.arange(301) % 3], rtol=1e-14, atol=1e-15)
    assert np.isclose(L.total(xs), (ref * 1.5).sum(), rtol=1e-12)
    return float(out.sum())
