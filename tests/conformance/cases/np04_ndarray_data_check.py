import numpy as np


def check(m):
    x = np.array([1.0, 4.0, 9.0, 16.0])
    assert m.root_sum(x) == (1.0 + 2.0 + 3.0 + 4.0 + 30.0, True)
    z = np.zeros((3, 5), dtype=np.int32)
    r = m.fill_rows(z)
    assert r is z and np.array_equal(z, (np.arange(15) * 3).reshape(3, 5))
    assert m.first_of_reversed(x[::-1]) == 16.0
    assert m.first_of_reversed(x[1:]) == 4.0
