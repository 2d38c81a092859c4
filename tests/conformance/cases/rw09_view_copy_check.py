import numpy as np


def check(mod):
    lab = np.array([4, 0, 2, 1, 3, 3], dtype=np.intc)
    rev = lab[::-2]
    before = lab.copy()
    assert mod.relabel(rev, 3) == [(v + 1) % 3 for v in rev.tolist()]
    assert np.array_equal(lab, before)

    x = np.arange(24.0).reshape(4, 6)[:, 1::2]
    x0 = x.copy()
    got = mod.centered(x)
    expect = []
    for row in x0.tolist():
        m = 0.0
        for v in row:
            m = m + v
        m = m / len(row)
        expect.append([v - m for v in row])
    assert got == expect
    assert np.array_equal(x, x0)
