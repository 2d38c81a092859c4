import numpy as np


def reference(X, C, tol, max_iter):
    C = C.copy()
    for it in range(max_iter):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        lab = d.argmin(axis=1)
        shift = 0.0
        for c in range(C.shape[0]):
            m = lab == c
            if m.any():
                t = X[m].mean(axis=0)
                shift += ((t - C[c]) ** 2).sum()
                C[c] = t
        if shift <= tol:
            break
    return lab, C, it + 1


def check(m):
    rng = np.random.default_rng(11)
    true = np.array([[0.0, 0.0, 0.0], [6.0, 6.0, 0.0], [0.0, 7.0, 5.0], [8.0, 0.0, 8.0]])
    X = np.concatenate([c + rng.standard_normal((250, 3)) for c in true])
    init = X[rng.choice(len(X), 4, replace=False)]
    km = m.KMeans(init)
    assert km.k == 4 and km.n_features == 3 and km.tol == 1e-10
    assert km.fit(X) is km
    lab, C, nit = reference(X, init, 1e-10, 100)
    assert np.array_equal(km.labels, lab)
    assert np.allclose(km.cluster_centers_, C, rtol=1e-12, atol=1e-12)
    assert km.n_iter == nit
    inertia = km.inertia(X)
    assert np.isclose(inertia, ((X - C[lab]) ** 2).sum(), rtol=1e-10)
    try:
        km.k = 3
        raise AssertionError("readonly k was set")
    except AttributeError:
        pass
    return km.labels, km.cluster_centers_, km.n_iter, inertia
