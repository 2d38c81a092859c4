import numpy as np


def raises(f, exc, msg):
    try:
        f()
    except exc as e:
        assert str(e) == msg, (str(e), msg)
    else:
        raise AssertionError("no %s" % exc.__name__)


class L(list):
    pass


class T(tuple):
    pass


def check(mod):
    x = np.arange(12.0).reshape(4, 3)
    assert mod.scale_rows(x, (2.0, -1.0, 0.5)) == 3
    assert np.array_equal(x, np.arange(12.0).reshape(4, 3) * np.array([2.0, -1.0, 0.5, 2.0])[:, None])
    raises(lambda: mod.scale_rows(x, [1.0]), TypeError,
           "Argument 'factors' has incorrect type (expected tuple, got list)")
    raises(lambda: mod.scale_rows(x, T((1.0,))), TypeError,
           "Argument 'factors' has incorrect type (expected tuple, got T)")

    out, seen = mod.collect([1.0, 5, 7.5, 5.0, -3], 2.0)
    assert out == [5.0, 7.5, 5.0] and seen == {5.0: 2, 7.5: 1}
    raises(lambda: mod.collect((1.0,), 0), TypeError, "Argument 'xs' has incorrect type (expected list, got tuple)")
    assert mod.collect(None if False else [], 0) == ([], {})

    assert mod.to_list([1]) == [1] and mod.to_list(None) is None
    raises(lambda: mod.to_list((1,)), TypeError, "Expected list, got tuple")
    raises(lambda: mod.to_list(L()), TypeError, "Expected list, got L")
    assert mod.to_tuple((1, 2)) == (1, 2)
    raises(lambda: mod.to_tuple([1]), TypeError, "Expected tuple, got list")

    assert mod.labels("ab") == ("AB", ["AB", 0], None, frozenset())
    assert mod.labels("x", b"abc", {1}, frozenset({2})) == ("X", ["X", 3], {1}, frozenset({2}))
    raises(lambda: mod.labels(b"x"), TypeError, "Argument 'name' has incorrect type (expected str, got bytes)")
    raises(lambda: mod.labels("x", "y"), TypeError, "Argument 'raw' has incorrect type (expected bytes, got str)")
    raises(lambda: mod.labels("x", b"", frozenset()), TypeError,
           "Argument 'tags' has incorrect type (expected set, got frozenset)")

    assert mod.swapped((1, 2)) == (2, 1)
    raises(lambda: mod.swapped([1, 2]), TypeError, "Expected tuple, got list")
    assert mod.typed_return({}) == "dict"
    raises(lambda: mod.typed_return([]), TypeError, "Expected dict, got list")
    raises(mod.constant_tuple_to_list, TypeError, "Expected list, got tuple")
