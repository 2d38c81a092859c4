import numpy as np


def expect_axis(f, args, axis):
    try:
        f(*args)
    except IndexError as e:
        assert str(e) == f"Out of bounds on buffer access (axis {axis})", (f.__name__, args, str(e))
    else:
        raise AssertionError(f"{f.__name__}{args[1:]} did not raise")


def check(m):
    a2 = np.arange(12.0).reshape(3, 4)
    a3 = np.arange(24.0).reshape(2, 3, 4)
    assert m.get2(a2, -1, -1) == 11.0 and m.get3(a3, 1, 2, 3) == 23.0
    for args, axis in [((5, 9), 1), ((1, 9), 1), ((-5, -9), 1), ((-1, -9), 1), ((5, 0), 0), ((-4, 0), 0)]:
        expect_axis(m.get2, (a2,) + args, axis)
        expect_axis(m.buf2, (a2,) + args, axis)
    for args, axis in [((2, 3, 4), 2), ((0, 3, 4), 2), ((0, 0, 4), 2), ((0, -4, -5), 2), ((-3, 0, 0), 0),
                       ((2, 3, 0), 1), ((5, 0, 0), 0)]:
        expect_axis(m.get3, (a3,) + args, axis)
        expect_axis(m.set3, (a3,) + args, axis)
    # without wraparound a negative index is out of bounds
    for args, axis in [((-1, 0), 0), ((0, -1), 1), ((-1, -1), 1), ((3, 4), 1)]:
        expect_axis(m.get2_nowrap, (a2,) + args, axis)
    assert m.par2(a2, 0, 1) == 1.0 + 6.0 + 11.0
    for args, axis in [((0, 5), 1), ((5, 5), 1), ((-10, 0), 0), ((5, 0), 0)]:
        expect_axis(m.par2, (a2,) + args, axis)
    assert m.par3(a3, 0, 2, 3) == 11.0 + 23.0
    for args, axis in [((0, 3, 4), 2), ((0, 0, 4), 2), ((5, 5, 5), 2), ((0, 3, 0), 1), ((5, 0, 0), 0)]:
        expect_axis(m.par3, (a3,) + args, axis)
    b = np.zeros((2, 3, 4))
    for args, axis in [((1, 1), 1), ((0, 2), 2), ((3, 3), 1), ((0, 3), 2)]:
        expect_axis(m.par3_store, (b,) + args, axis)
    m.par3_store(b, 0, 1)
    assert b[:, [0, 1, 2], [1, 2, 3]].tolist() == [[2.0] * 3] * 2
