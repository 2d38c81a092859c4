import numpy as np


def check(m):
    v = np.zeros(10, dtype=np.intc)
    assert m.kept(4, 0, v) == 0
    assert list(v) == [8, 9, 10, 11, 0, 0, 0, 0, 0, 0], v
    assert m.kept(4, 1, v) == 5
    w = np.zeros(10, dtype=np.intc)
    assert m.scaled(10, w) == 30
    assert list(w) == [30 - i for i in range(10)], w
