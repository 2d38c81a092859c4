import numpy as np
def check(mod):
    rng = np.random.default_rng(5)
    out = []
    for n in (1, 2, 300):
        p = rng.standard_normal((n, 3)); m = rng.random(n) + 0.1; v = rng.standard_normal((n, 3))
        a = mod.accelerations(p, m)
        d = p[None, :, :] - p[:, None, :]
        r2 = (d ** 2).sum(-1) + 1e-6
        w = m[None, :] / (r2 * np.sqrt(r2)); np.fill_diagonal(w, 0)
        assert np.allclose(a, (w[:, :, None] * d).sum(1), rtol=1e-10, atol=1e-12)
        a2 = mod.accelerations(p, m, eps=0.5)
        e = mod.kinetic(v, m)
        assert np.isclose(e, 0.5 * (m * (v ** 2).sum(1)).sum())
        out += [a, a2, e]
    return out
