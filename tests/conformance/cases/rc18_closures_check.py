import numpy as np


def check(mod):
    pts = [(3, 4), (0, 1), (-2, 0), (1, 1)]
    assert mod.sort_by_distance(pts, 0.0, 0.0) == [(0, 1), (1, 1), (-2, 0), (3, 4)]
    assert mod.sort_by_distance(pts, 3.0, 3.0)[0] == (3, 4)
    fs = mod.adders(3)
    assert [f(10) for f in fs] == [10, 11, 12] and fs[2](1, 100) == 101
    f = mod.make_formatter("item", 4)
    assert f(7) == "item:    7" and f(8, upper=True) == "ITEM:    8"
    assert f.__name__ == "fmt" and f.__doc__ == "Formats one item."
    g = mod.make_formatter("x", 1)
    assert g(5) == "x: 5" and f(7) == "item:    7"
    try:
        f(1, prefix="no")
    except TypeError as e:
        assert "unexpected keyword argument 'prefix'" in str(e), e
    else:
        raise AssertionError("no TypeError")
    log = []
    w = mod.logged(max, log)
    assert w(3, 9, 2) == 9 and w([1, 5], key=lambda v: -v) == 1
    assert log == [("max", (3, 9, 2)), ("max", ([1, 5],))]
    assert mod.curry3(1)(2)(3) == (1, 2, 3)
    c = mod.curry3("a")
    assert c("b")("c") == ("a", "b", "c") and c("x")("y") == ("a", "x", "y")
    assert mod.shifted(1) == 2.0 and mod.shifted(1, 4.0) == 3.0
    assert mod.sample(np.arange(10.0), 3) == [0.0, 3.0, 6.0]
    assert mod.pipeline(2) == [20, 21, 22]
    assert mod.Scaler(1.5).apply_all([2, 4]) == [3.0, 6.0]
    tree = ("a", [("b", []), ("c", [("d", [])])])
    assert mod.flatten(tree) == [("a", 0), ("b", 1), ("c", 1), ("d", 2)]
    assert mod.by_mode([1, 2], 1) == [5.0, 7.0] and mod.by_mode([1, 2], 0) == [2.0, 1.0]
