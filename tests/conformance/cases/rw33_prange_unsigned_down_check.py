import numpy as np


def expect(idx, k, n=12):
    e = np.zeros(n, dtype=np.int_)
    for i in idx:
        e[i] = 10 * i + k
    return e


def check(m):
    for n in (0, 1, 5, 12):
        out = np.zeros(12, dtype=np.int_)
        assert m.down_int(n, out) == n
        assert (out == expect(range(n - 1, -1, -1), 1)).all(), out
        out = np.zeros(12, dtype=np.int_)
        # 0 - n is unsigned: a huge count, divided by -1 a negative one
        assert m.down_unsigned(n, out) == (0, 77)
        assert not out.any()
        out = np.zeros(12, dtype=np.int_)
        assert m.down_size_t(n, out) == len(range(n - 1, -1, -2))
        assert (out == expect(range(n - 1, -1, -2), 3)).all(), out
        out = np.zeros(12, dtype=np.int_)
        c, i = m.down_signed(n, out)
        assert c == n and (n == 0 or i == 0)
        assert (out == expect(range(n - 1, -1, -1), 4)).all(), out
    out = np.zeros(12, dtype=np.int_)
    assert m.up_unsigned(3, 10, out) == (4, 9)
    assert (out == expect(range(3, 10, 2), 5)).all(), out
    out = np.zeros(12, dtype=np.int_)
    assert m.step_var(11, 2, -3, out) == 3
    assert (out == expect(range(11, 2, -3), 6)).all(), out
    out = np.zeros(12, dtype=np.int_)
    assert m.step_var(1, 11, 4, out) == 3
    assert (out == expect(range(1, 11, 4), 6)).all(), out
    # a negative step from below the stop: no iteration
    assert m.step_var(2, 11, -1, np.zeros(12, dtype=np.int_)) == 0
    o = np.zeros((3, 6), dtype=np.int_)
    assert m.nested(5, 3, o) == 0 and not o.any()
    assert m.nested_int(6, 3, o) == 18
    assert (o == np.array([[10 * j + i for j in range(6)] for i in range(3)])).all(), o
    assert m.nested_int(0, 3, o) == 0
