def ex(f):
    try:
        f()
    except Exception as e:
        return type(e).__name__, str(e)
    return None


def check(mod):
    t = mod.Tree(3)
    assert t.size == 3 and mod.Tree.size.__doc__ == "The number of nodes."
    t.size = 7
    assert t.size == 7 and t.n == 7
    assert ex(lambda: setattr(t, 'size', -1)) == ('ValueError', 'negative size')
    assert ex(lambda: delattr(t, 'size')) == ('NotImplementedError', '__del__')
    assert ex(lambda: setattr(t, 'frozen', 1)) == (
        'AttributeError', "attribute 'frozen' of '%s.Tree' objects is not writable" % mod.__name__)
    t.children.append(1)
    assert t.erasable == 1
    del t.erasable
    assert t.erasable == 0
    assert ex(lambda: setattr(t, 'erasable', 3)) == ('NotImplementedError', '__set__')
    t.scale = 2.5
    assert t.scale == 2.5
    del t.scale
    assert t.scale == 1.0
    assert ex(lambda: setattr(t, 'scale', 'x'))[0] == 'TypeError'
