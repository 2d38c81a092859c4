import numpy as np


def check(m):
    assert m.powers(1000) == (999**7, "int")
    assert m.big_sum(1000) == 1000000007 * 999 * 1000 // 2
    try:
        m.big_sum(3000000)
    except OverflowError:
        pass
    else:
        raise AssertionError("the Python int sum fitted a C long")
    assert m.indexed(np.arange(5.0)) == (10.0, 4)
    assert m.negated(3) == [0, -1, -2]
    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros(3)
    assert np.array_equal(m.in_prange(a, out), a[:, 0] + a[:, 1] + a[:, 2] + a[:, 3])
