def check(mod):
    assert (mod.HEAD, mod.TAIL) == (10, [20, 30])
    assert mod.split_row([1, 2, 3]) == (1, [2, 3])
    assert mod.split_row((7,)) == (7, [])
    assert mod.split_last(range(4)) == ([0, 1, 2], 3)
    assert mod.middle("abcd") == ("a", ["b", "c"], "d")
    assert mod.middle(iter([1, 2])) == (1, [], 2)
    assert mod.typed([1.25, 2, 3]) == (2.5, 2)
    assert mod.parse_lines(["a 1 2", "b", "c 0.5"]) == {"a": [1.0, 2.0], "b": [], "c": [0.5]}
    assert mod.table([("a", 1, 2, 3), ["b", 9]]) == [("a", 2, 3), ("b", 0, 9), "end"]
    try:
        mod.table([("x",)])
    except ValueError as e:
        assert str(e) == "need more than 1 value to unpack", e
    else:
        raise AssertionError("no ValueError")
    for bad, n in (([1], 1), ([], 0)):
        try:
            mod.middle(bad)
        except ValueError as e:
            assert str(e) == "need more than %d value%s to unpack" % (n, "" if n == 1 else "s"), e
        else:
            raise AssertionError("no ValueError")
    try:
        mod.split_row(5)
    except TypeError as e:
        assert "not iterable" in str(e)
    else:
        raise AssertionError("no TypeError")
