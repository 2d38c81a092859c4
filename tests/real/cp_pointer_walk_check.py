import numpy as np


def check(mod):
    rng = np.random.default_rng(21)
    out = []
    for n, m in ((1, 1), (13, 9), (3000, 64)):
        x = rng.random((n, m)) + 0.01
        x[::3, m // 2] *= -1
        ss, neg, total = mod.row_stats(x)
        assert np.allclose(ss, (x * x).sum(axis=1), rtol=1e-12)
        refneg = np.array([int(np.argmax(r < 0)) if (r < 0).any() else -1 for r in x])
        assert np.array_equal(neg, refneg)
        assert np.isclose(total, (x * x).sum())
        out += [ss, neg, total]
    x = rng.random((10, 5))
    rows = np.array([1, 4, 9], dtype=np.intp)
    mod.zero_rows(x, rows)
    assert not x[rows].any() and x[[0, 2, 3]].all()
    out.append(x)
    return out
