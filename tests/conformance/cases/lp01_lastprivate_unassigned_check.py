import numpy as np


def check(m):
    for n in (1, 7, 1000, 100000):
        v = np.linspace(0.5, 3.0, n)
        assert m.first_negative_seen(v) == (-7, 2.5), m.first_negative_seen(v)
    for shape in ((1, 1), (9, 5), (300, 40)):
        a = np.zeros(shape)
        assert m.rows_marked(a, 1.0) == (-3, 11), m.rows_marked(a, 1.0)
    # the last row (and, natively, every row of the last thread) assigns:
    # the sequentially last values, whatever the team
    a = np.zeros((50, 6)); a[:, 2] = 5.0
    assert m.rows_marked(a, 1.0) == (49, 2)
    v = -np.ones(64)
    assert m.first_negative_seen(v) == (63, -1.0)
