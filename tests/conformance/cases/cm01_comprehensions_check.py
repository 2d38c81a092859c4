import numpy as np


def wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def wrap64(v):
    return (v + 2**63) % 2**64 - 2**63


def int_pow7(k, wrap):
    r = k
    for _ in range(6):
        r = wrap(r * k)
    return r


def check(m):
    assert m.SQUARES == [k * k for k in range(10)]
    assert m.EVENS == set(range(0, 20, 2))
    assert m.WRAPPED == int_pow7(999, wrap32) and m.EXACT == 999**7
    x = np.linspace(-1.5, 3.0, 37)
    assert m.doubled(x, np.zeros(37)) == (2 * x).tolist()
    assert m.no_leak(4) == (-1, [0, 1, 2, 3])
    assert m.no_leak(0) == (-1, [])
    assert m.int_wrap(1000, 1000) == (int_pow7(999, wrap32), int_pow7(999, wrap64))
    assert m.genexpr_exact(1000) == (sum(k**7 for k in range(1000)), 999**4)
    assert m.nested(4) == ([[], [0], [0, 2], [0, 3, 6]], [(1, 0), (2, 1), (3, 0), (3, 2)])
    assert m.dicts(["a", "bb", "ccc"], [1, None, 3]) == ({"a": 1, "ccc": 3}, {"a": 1, "bb": 2, "ccc": 3})
    y = np.array([0.5, 1.0, 7.0, 2.0, 9.0])
    # any() stops at the first true element, all() at the first false one
    assert m.short_circuit(y, 5.0) == (True, 3, False, 3)
    assert m.short_circuit(y, 10.0) == (False, 5, True, 5)
    assert m.short_circuit(np.zeros(0), 1.0) == (False, 0, True, 0)
    assert m.nested_any(10, 42) == (True, True) and m.nested_any(5, 42) == (False, True)
    z = np.array([3.5, -1.25, 2.0, 8.0, 0.125])
    assert m.reductions(z) == (sum(z.tolist()), -1.25, [-1.25, 0.125, 2.0], (3, -1, 2), "0,1,2,3", 110)
    assert m.sets(["apple", "avocado", "", "kiwi"]) == ({"a", "k"}, [4, 5, 7], {4, 1, "a"})
    assert m.conditional(3, True) == [0, 1, 2] and m.conditional(2, False) == {0: 0, 1: 1}
    try:
        m.dicts(["a", 1], [1, 2])
    except TypeError:
        pass
    else:
        raise AssertionError("len(1) accepted")
    w = np.array([0.5, 1.5, 2.5])
    assert m.view_items(w, np.arange(3, dtype=np.int32)) == (["float"] * 3, [2.5, 1.5, 0.5], [0, 2, 4])
