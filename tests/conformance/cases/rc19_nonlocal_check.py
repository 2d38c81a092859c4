def check(mod):
    inc, peek = mod.make_counter(5)
    assert (inc(), inc(3), peek()) == (6, 9, 9)
    inc2, peek2 = mod.make_counter()
    assert inc2() == 1 and peek() == 9 and peek2() == 1
    assert mod.accumulate([1, 2, 3]) == (6, 3) and mod.accumulate([]) == (0, 0)
    assert mod.doubled_twice(3) == 12 and mod.doubled_twice("ab") == "abababab"
    tree = ("a", [("b", [("d", [])]), ("c", [("d", [])])])
    assert mod.find_first(tree, "d") == ["a", "b", "d"]
    assert mod.find_first(tree, "zz") is None
