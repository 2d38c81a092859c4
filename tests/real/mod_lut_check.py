import numpy as np


def check(mod):
    tab = mod.table()
    assert tab.shape == (1025,) and np.array_equal(tab, np.cos(np.arange(1025) * (2.0 * np.pi / 1024)))
    rng = np.random.default_rng(4)
    out = []
    for n in (0, 1, 5000):
        x = rng.uniform(-20, 20, n)
        got = mod.cos_lut(x)
        assert np.allclose(got, np.cos(x), atol=5e-6)
        out.append(got)
    assert mod.calls() == 3
    return out
