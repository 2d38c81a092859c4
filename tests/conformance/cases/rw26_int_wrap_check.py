import numpy as np


def wrap(v):
    return (v + 2**31) % 2**32 - 2**31


def check(m):
    assert m.wrap_products(123456, 54321) == (wrap(123456 * 54321), (123456 * 54321) % 2**32, 123456 * 54321)
    assert m.wrap_products(-7, 3) == (-21, 2**32 - 21, -21)
    v = np.arange(1, 40, dtype=np.intc) * 1000003
    h = 17
    for x in v:
        h = wrap(h * 31 + int(x))
    assert m.int_hash(v) == h
    assert m.overflows(2**31 - 1) == (False, -2**31)
    assert m.overflows(5) == (True, 6)
