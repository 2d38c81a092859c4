import numpy as np
def check(mod):
    rng = np.random.default_rng(3)
    out = []
    for n, k, d in ((1, 1, 1), (50, 3, 2), (2000, 8, 5)):
        X = rng.standard_normal((n, d)); C = X[rng.integers(0, n, k)].copy()
        lab = np.empty(n, dtype=np.int64)
        inertia = mod.assign(X, C, lab)
        D = ((X[:, None, :] - C[None]) ** 2).sum(-1)
        assert np.array_equal(lab, D.argmin(1))
        assert np.isclose(inertia, D.min(1).sum())
        s, c = mod.update(X, lab, k)
        assert np.array_equal(c, np.bincount(lab, minlength=k))
        out += [lab, inertia, s, c]
    return out
