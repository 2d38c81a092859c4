import numpy as np


def check(m):
    w = np.arange(1.0, 6.0)
    del m.log[:]
    r = m.Rect(2.0, 3.0, w)
    assert m.log == ["Shape.cinit", "Rect.cinit"], m.log
    assert (r.name, r.wd, r.ht, r.sides) == ("rect", 2.0, 3.0, 4)
    assert r.big() == w.sum() * 2.0 * 3.0 * 2.0
    assert r.weighted() == 2.0 * w.sum()
    assert r.describe() == "R:rect 0.0"
    assert m.area_of(r) == 0.0 and m.name_of(r) == "rect"
    assert isinstance(r, m.Shape) and issubclass(m.Rect, m.Shape)
    s = m.Shape("s", w)
    assert s.describe() == "s 0.0" and s.sides == 0
    try:
        m.name_of(s)
        raise AssertionError("a Shape passed as a Rect")
    except TypeError as e:
        assert "Rect" in str(e)
    try:
        r.sides = 3
        raise AssertionError("readonly inherited attribute set")
    except AttributeError:
        pass
    del m.log[:]
    del r
    assert m.log == ["Rect.dealloc", "Shape.dealloc"], m.log
    return s.weighted()
