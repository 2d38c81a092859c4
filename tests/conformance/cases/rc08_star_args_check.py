import numpy as np


def ex(f):
    try:
        return f()
    except Exception as e:
        return type(e).__name__, str(e)


def check(mod):
    assert mod.total() == (0.0, 0) and mod.total(1, 2.5) == (3.5, 2)
    assert mod.opts(1) == (1, []) and mod.opts(1, b=2, a=3) == (1, [('a', 3), ('b', 2)])
    assert mod.mixed(1) == (1, 2, (), 1.0, [])
    assert mod.mixed(1, 3, 4, 5, scale=2.0, z=1, y=2) == (1, 3, (4, 5), 2.0, [('y', 2), ('z', 1)])
    assert ex(lambda: mod.mixed()) == ('TypeError', 'mixed() takes at least 1 positional argument (0 given)')
    assert ex(lambda: mod.mixed(1, a=2)) == ('TypeError', "mixed() got multiple values for keyword argument 'a'")
    assert ex(lambda: mod.opts(1, x=2)) == ('TypeError', "opts() got multiple values for keyword argument 'x'")
    assert ex(lambda: mod.total(a=1)) == ('TypeError', "total() got an unexpected keyword argument 'a'")
    assert mod.fwd(1, 2, 3, k=4) == (1, 2, (3,), 1.0, [('k', 4)])
    assert mod.Model(2.0, foo=1).w == 2.0
    assert mod.Model(w=3.0).predict(np.ones(3), 1, 2) == 11.0
    assert mod.zipped([(1, 2), (3, 4)]) == [(1, 3), (2, 4)]
    assert mod.call_with(dict, [[('a', 1)]], {'b': 2}) == {'a': 1, 'b': 2}
    assert mod.call_spread((2, 3), {}) == (6, 3, 10)
    assert ex(lambda: mod.call_with(mod.spread, (1, 2), {'a': 5})) == (
        'TypeError', "spread() got multiple values for keyword argument 'a'")
    assert ex(lambda: mod.call_with(mod.spread, (1, 2), {1: 2})) == ('TypeError', 'keywords must be strings')
