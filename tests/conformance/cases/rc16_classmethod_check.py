def check(mod):
    assert mod.build() == ((0.0, 2.0), "Closed", "Closed", "Closed[1, 6]", "The interval [c - r, c + r].")
    i = mod.Interval.around(3, r=0.5)
    assert type(i) is mod.Interval and (i.lo, i.hi) == (2.5, 3.5)
    assert type(mod.Closed.around(0)) is mod.Closed
    assert mod.Interval(1, 2).kind() == "Interval"

    class Mine(mod.Interval):
        pass

    m = Mine.parse("1,4")
    assert type(m) is Mine and (m.lo, m.hi) == (1.0, 4.0) and Mine.kind() == "Mine"
    try:
        mod.Interval.parse("3,1")
    except ValueError as e:
        assert str(e) == "empty interval"
    else:
        raise AssertionError("no ValueError")
    try:
        mod.Interval.around()
    except TypeError:
        pass
    else:
        raise AssertionError("no TypeError")
