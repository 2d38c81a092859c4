class O:
    pass


def expect(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        return str(e)
    raise AssertionError("no %s" % exc.__name__)


def check(mod):
    assert mod.f({'a': 1, 'b': 2}, 3) == ([4, 5], {'b': 2})
    assert mod.g(False) == [1.5]
    assert expect(UnboundLocalError, mod.g, True) == "local variable 'x' referenced before assignment"
    o = O()
    o.attr = 1
    assert not hasattr(mod.k(o), 'attr')
    expect(AttributeError, mod.k, o)
    assert expect(KeyError, mod.f, {}, 1) == "'a'"
    assert mod.h() == 'gone'
    assert expect(AttributeError, mod.m) == "'module' object has no attribute 'G'"
    assert mod.n({'_a': 1, 'b': 2, '_c': 3}) == {'b': 2}
