import numpy as np


def wrap(v, bits=32):
    return (v + 2**(bits - 1)) % 2**bits - 2**(bits - 1)


def check(m):
    xs = [2**31 - 1, -2**31, 0, 1, -1, 123456789, -987654321, 2**30, 65535, 2**31 - 2]
    x = np.array(xs * 13, dtype=np.intc)
    n = len(x)
    gt, prod, neg, acc = (np.zeros(n, dtype=np.intc) for _ in range(4))
    big = np.zeros(n, dtype=np.longlong)
    m.wrap_body(x, gt, prod, big, neg, acc)
    for i, y in enumerate(int(v) for v in x):
        assert gt[i] == (wrap(y + 1) > y), (i, y, gt[i])
        assert prod[i] == wrap(wrap(y * 65537) - 3), (i, y, prod[i])
        assert big[i] == wrap(wrap(y * 4611686018427387, 64) * 1000 + 7, 64), (i, y, big[i])
        assert neg[i] == wrap(-wrap(y - 2147483647)), (i, y, neg[i])
        h = y
        for _ in range(3):
            h = wrap(h * 31 + 1000003)
        assert acc[i] == wrap(h + y), (i, y, acc[i])
    s, t = m.wrap_sum(x)
    assert s == wrap(sum(int(v) * 3 for v in x)), s
    x2 = np.array([3, -5, 7, 2**20 + 1, -(2**19) - 3] * 40, dtype=np.intc)
    p = 1
    for v in x2:
        p = wrap(p * int(v), 64)
    assert m.wrap_sum(x2) == (wrap(sum(int(v) * 3 for v in x2)), p)
