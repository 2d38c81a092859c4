import numpy as np


def check(mod):
    rng = np.random.default_rng(41)
    a = rng.random((9, 4))
    b = rng.random((6, 4))
    out, norms = mod.eudist(a, b)
    out, norms = np.asarray(out), np.asarray(norms)
    assert out.shape == (9, 6) and norms.shape == (9,)
    expect = np.empty((9, 6))
    for i in range(9):
        for j in range(6):
            s = 0.0
            for k in range(4):
                s += (a[i, k] - b[j, k]) * (a[i, k] - b[j, k])
            expect[i, j] = np.sqrt(s)
    assert np.array_equal(out, expect)
    en = [sum(v * v for v in row) for row in a.tolist()]
    assert np.array_equal(norms, en)

    r0, r1, last, c = mod.counts(4, 3)
    assert (r0, r1, last) == (4, 3, 11)
    assert np.asarray(c).tolist() == np.arange(12).reshape(4, 3).tolist()
