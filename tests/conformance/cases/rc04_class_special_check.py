import pickle


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        return str(e)
    raise AssertionError("no %s" % exc.__name__)


def check(mod):
    b = mod.Bag()
    assert not b and len(b) == 0 and repr(b) == "Bag([])"
    b.add(1.5)
    b.add(2.5)
    assert (len(b), b[0], b[-1], 2.5 in b, 3.0 in b) == (2, 1.5, 2.5, True, False)
    assert repr(b) == "Bag([1.5, 2.5])" and str(b) == "bag of 2" and bool(b)
    assert raises(IndexError, lambda: b[5])
    b[1] = 7.0
    assert b[1] == 7.0
    assert raises(NotImplementedError, b.__delitem__, 0) == "Subscript deletion not supported by %s.Bag" % mod.__name__
    c = pickle.loads(pickle.dumps(b))
    assert c is not b and c == b and not (c != b) and b != mod.Bag()
    assert b(2, scale=0.5) == [1.5, 7.0]
    assert list(b) == [1.5, 7.0]           # iteration through __getitem__
    assert raises(TypeError, hash, b) == "unhashable type: '%s.Bag'" % mod.__name__
    assert list(mod.Range2(3)) == [2, 4, 6] and list(mod.Range2(0)) == []
    assert hash(mod.Range2(5)) == 5 and hash(mod.Range2(-1)) == -2
    o1, o2, o3 = mod.Ord(1), mod.Ord(2), mod.Ord(3)
    assert (o1 < o2, o1 == mod.Ord(1), o3 > o2, o2 > o3) == (True, True, True, False)
    assert "'<='" in raises(TypeError, lambda: o1 <= o2)
    assert raises(TypeError, lambda: o1 < 5)   # other must be an Ord
