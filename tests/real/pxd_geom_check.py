import numpy as np


def check(mod):
    rng = np.random.default_rng(7)
    pts = rng.uniform(-3, 3, (1000, 2))
    g = mod.Grid(pts)
    assert g.n == 1000
    assert g.extent() == pts[:, 0].max() - pts[:, 0].min()
    d2 = g.distances(0.5, -0.25)
    assert np.allclose(d2, np.hypot(pts[:, 0] - 0.5, pts[:, 1] + 0.25), rtol=1e-14)
    d1 = g.distances(0.5, -0.25, 1)
    assert np.array_equal(d1, np.abs(pts[:, 0] - 0.5) + np.abs(pts[:, 1] + 0.25))
    x = rng.uniform(-0.5, 1.5, 257)
    c = mod.clamp_all(x)
    assert np.array_equal(c, np.clip(x, 0, 1))
    assert mod.maxk() == 8
    near = mod.nearest(d2)
    assert near == (int(np.argmin(d2[:8])), 8)
    assert mod.nearest(d2[:3]) == (int(np.argmin(d2[:3])), 3)
    assert mod.hyp(3.0, 4.0) == 5.0
    return [d2, d1, c, near, g.extent()]
