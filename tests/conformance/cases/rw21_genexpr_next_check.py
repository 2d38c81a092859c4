def raises(exc, f, *args):
    try:
        f(*args)
    except exc as e:
        return e
    raise AssertionError('no %s' % exc.__name__)


def check(mod):
    assert mod.first_big([1, 5, 7], 4) == 5
    assert raises(StopIteration, mod.first_big, [1], 4).args == ()
    assert mod.first_or([0, 2, 0]) == 0.5
    assert mod.first_or([0, 0]) is None and mod.first_or([]) is None
    assert mod.pair(4) == (2, 3) and mod.pair(2) == 'none'
    assert mod.count_calls([3, 4, 5]) == (3, [3])
    raises(TypeError, mod.first_or, None)
