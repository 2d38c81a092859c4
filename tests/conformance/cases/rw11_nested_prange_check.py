import numpy as np


def check(mod):
    a = (np.arange(3000, dtype=np.intc) % 97).reshape(60, 50)
    out = np.zeros(60, dtype=np.int_)
    mod.row_sums(a, out)
    assert np.array_equal(out, a.sum(axis=1) * 2)
    assert mod.total(a) == int(a.sum())
