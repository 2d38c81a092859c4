import numpy as np


def check(m):
    assert m.times(2) == 10 and m.times(2, 3) == 6
    assert m.nudge(1.0) == 1.0 + 1e-9 * 3.0
    a = np.linspace(0.0, 2.0, 101)
    assert np.array_equal(m.scaled(a), a * 6.0)
    out = np.ones(101)
    assert m.scaled(a, out, 0.5) is out and np.array_equal(out, a * 0.5)
    assert m.ints() == (7, 6, [1, 2, 3]) and m.ints(1, 2, None) == (1, 2, None)
    assert m.cp(1.0) == 12.0 and m.call_cdef(2.0) == (-6.0, 2.0, 24.0)
    # one list, made when the def ran, shared by every call
    assert [m.remember(k) for k in range(3)] == [1, 2, 3]
