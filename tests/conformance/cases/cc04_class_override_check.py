def check(m):
    sh = [m.Shape(2.0), m.Square(2.0), m.Cube(2.0), m.Circle(1.0)]
    rep = [s.report() for s in sh]
    assert rep == [(0.0, 0.0), (9.0, 24.0), (864.0, 96.0), (0.0, 25.12)], rep
    assert abs(m.total(sh) - 945.56) < 1e-9
    assert [s.area() for s in sh] == [0.0, 9.0, 864.0, 0.0]
    assert m.per_of(sh[3], 2) == 6.28 * 2.0 * 2  # report() bumped s to 2
    for s, k, msg in [(sh[3], 7, "big"), (sh[0], -1, "neg")]:
        try:
            m.per_of(s, k)
            raise AssertionError("no ValueError")
        except ValueError as e:
            assert str(e) == msg
    assert m.per_of(sh[1], -1) == -12.0
    return rep
