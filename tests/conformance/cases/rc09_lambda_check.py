def check(mod):
    assert mod.by_second([(1, 2), (3, 1), (0, 5)]) == [(0, 5), (1, 2), (3, 1)]
    assert mod.transform([(3, 1), (1, 2)]) == ([10, 4], [(3, 1), (1, 2)])
    assert mod.pick({'a': 1, 'b': 3, 'c': 3}) == [('b', 3), ('c', 3), ('a', 1)]
    assert mod.compose() == ((1, None, (), []), (1, 2, (3,), ['z']), [0, 2, 4], 7)
    assert mod.name() == 'lambda7'
    assert mod.key_last((1, 9)) == 9 and mod.key_last.__name__ == 'lambda'
    mod.SCALE = 10
    assert mod.transform([(2, 0)])[0] == [21]       # a global is read at call time
