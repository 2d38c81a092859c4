import numpy as np


def c_loop(start, cond, step):
    """The values a C for loop visits and the variable after it."""
    i, seen = start, []
    while cond(i):
        seen.append(i)
        i += step
    return seen, i


def check(mod):
    for n in (0, 1, 5, 10, 11):
        seen, last = c_loop(0, lambda i: i < n, 1)
        assert mod.up(n) == (last, sum(seen))

        seen, last = c_loop(1, lambda i: i <= n, 3)
        assert mod.up_by(n) == (last, sum(seen) + sum(1 for i in seen if i != 7))

        seen, last = c_loop(n - 1, lambda i: i >= 0, -2)
        s = 0
        for i in seen:
            s = s * 3 + i
        assert mod.down_by(n) == (last, s)

        seen, last = c_loop(0, lambda i: i < n, 1)
        assert mod.with_else(n, 100) == (last, -sum(seen))
        if n > 3:
            assert mod.with_else(n, 3) == (3, 0 + 1 + 2)

    assert mod.untyped(5) == (5, sum(k * 10000000000000 * 1000000 for k in range(5)))
    assert mod.untyped(0) == (0, 0)

    x = np.zeros((7, 4))
    mod.columns(x)
    assert np.array_equal(x, np.arange(4)[None, :] * 0.5 + np.arange(7)[:, None])
    xf = np.asfortranarray(np.zeros((5, 3)))
    mod.columns(xf)
    assert np.array_equal(xf, np.arange(3)[None, :] * 0.5 + np.arange(5)[:, None])

    rng = np.random.default_rng(5)
    m = rng.random((9, 8))
    out = np.zeros(9)
    mod.row_tails(m, out)
    expect = []
    for i in range(9):
        seen, last = c_loop(7, lambda k: k >= i % 3, -2)
        acc = 0.0
        for k in seen:
            acc = acc * 0.5 + m[i, k]
        expect.append(acc + last)
    assert np.array_equal(out, expect), (out, expect)

    assert mod.add_object(5, 3) == (6, 1.5)
    assert mod.add_object(2**31 - 2, 1.0) == (2**31 - 1, 0.5)
    try:
        mod.add_object(2**31, 1)
    except OverflowError:
        pass
    else:
        raise AssertionError("int overflow not raised")
