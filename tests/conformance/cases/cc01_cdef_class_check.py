def expect(exc, fn, *a, **k):
    try:
        fn(*a, **k)
    except exc as e:
        return str(e)
    raise AssertionError("no %s" % exc.__name__)


def check(m):
    o = m.origin()
    assert (o.x, o.y, o.label) == (0.0, 0.0, "o")
    p = m.Point(3.0, 4.0)
    assert (p.x, p.y, p.moves, p.label) == (3.0, 4.0, 0, None)
    assert p.norm2() == 25.0
    assert p.get_weight() == 11.0
    assert p.r2 == 25.0 and type(p).r2.__doc__ == "the squared norm"
    expect(AttributeError, setattr, p, "r2", 1.0)
    assert m.Point(1.0).y == 0.0
    q = m.Point(y=2.0, x=1.0, label="q")
    assert (q.x, q.y, q.label) == (1.0, 2.0, "q")
    assert p.move(1.0) is p and p.move(0.5, dy=1.0) is p
    assert (p.x, p.y, p.moves) == (4.5, 5.0, 2)
    p.x = 7
    assert p.x == 7.0 and type(p.x) is float
    p.label = [1, 2]
    assert p.label == [1, 2]
    assert type(p).__name__ == "Point" and type(p).__doc__ == "A point in the plane."
    assert "not writable" in expect(AttributeError, setattr, p, "moves", 3)
    assert "has no attribute 'weight'" in expect(AttributeError, getattr, p, "weight")
    assert "must be real number, not str" in expect(TypeError, setattr, p, "x", "a")
    expect(TypeError, m.Point)
    expect(TypeError, m.Point, 1.0, 2.0, 3, 4)
    mid = m.midpoint(m.Point(0.0, 0.0), m.Point(2.0, 4.0))
    assert (mid.x, mid.y, mid.label) == (1.0, 2.0, "mid")
    msg = expect(TypeError, m.midpoint, p, 3)
    assert "Argument 'b' has incorrect type" in msg and "Point" in msg, msg
    assert m.total_x([m.Point(1.0), m.Point(2.5)]) == 3.5
    assert "Point" in expect(TypeError, m.total_x, [m.Point(1.0), 2.0])
    assert m.maybe() == -1.0 and m.maybe(m.Point(1.0, 1.0)) == 2.0
    c = m.Counter()
    assert (c.n, c.last) == (0, None)
    assert c.add(p) == 1 and c.add(q, k=5) == 6 and c.last is q
    assert "must not be None" in expect(TypeError, c.add, None) or "NoneType" in expect(TypeError, c.add, None)
    expect(TypeError, setattr, c, "last", 3)
    c.last = None
    assert c.seen == [1, 5]
    assert c.histogram() == [0, 2, 0, 0]
    assert expect(TypeError, setattr, c, "seen", (1,)) == "Expected list, got tuple"
    c.seen = None
    assert c.last is None
    return (p.x, p.y, p.moves, mid.x, c.n)
