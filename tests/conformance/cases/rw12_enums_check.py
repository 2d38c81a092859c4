import numpy as np


def check(mod):
    a = np.array([1, 2, 3, 5, 2, 7, 1, 0], dtype=np.intc)
    # RED=1 -> 10, GREEN=2 -> EXACT(5) + NEXTRA(5), pick=3 -> PLUS - MINUS = 2
    assert mod.count(a, 3) == (10 * 2 + 10 * 2 + 2, 4)
    assert mod.count(a, 7) == (10 * 2 + 10 * 2 + 2, 4)
    n = -5
    c = n * n
    # c + n is Cython's int of C's unsigned sum; r is C's unsigned value in a
    # long; max() holds RED in a temporary of the enum's (unsigned) type
    assert mod.typing(n) == (c + n, 2 + n + 2**32, 1 + n, n, c // 3, n, True, True, -1)
    assert mod.typing(3) == (12, 5, 4, 3, 3, 3, False, True, -1)
    assert mod.pick(10, 4) == ('blue', 4)
    assert mod.pick(2, 5) == ([0, 4, 5, 0], 2)
    for bad in (-1, 2**32):
        try:
            mod.pick(bad, 0)
        except OverflowError:
            pass
        else:
            raise AssertionError('no OverflowError for %d' % bad)
