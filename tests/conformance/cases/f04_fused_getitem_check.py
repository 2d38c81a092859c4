import numpy as np


def check(m):
    assert sorted(m.twice.__signatures__) == ["double", "float"]
    assert sorted(m.scale.__signatures__) == ["double|int", "double|long", "float|int", "float|long"]
    f32 = float(np.float32(1.1)) * 2
    assert m.twice["double"](1.1) == 2.2 and m.twice["float"](1.1) == f32
    assert m.twice[float](1.1) == f32  # the type float: its __name__, C float
    assert m.twice["double",](1.1) == 2.2 and m.twice(1.1) == 2.2
    assert m.thrice["float"](1.1) == float(np.float32(1.1)) * 3 and m.thrice["double"](2.0) == 6.0
    assert m.inside(1.1) == (f32, 2.2) and m.F == f32
    a = np.arange(8, dtype=np.float32)
    assert m.scale["float", "long"](a, 2.0, 6) == 6
    assert a.tolist() == [0, 2, 4, 6, 8, 10, 6, 7]
    b = np.arange(8, dtype=np.float64)
    assert m.scale["double|int"](b, 0.5, 8) == 8 and b.tolist() == [k * 0.5 for k in range(8)]
    assert m.first["double"](np.array([2.5])) == 2.5
    for key in ["int", "float,double", ("float", "short"), np.float32, 3]:
        try:
            m.twice[key] if key != ("float", "short") else m.scale[key]
        except KeyError:
            pass
        else:
            raise AssertionError(f"{key!r} accepted")
    try:
        m.scale["double", "int"](a, 1.0, 3)
    except ValueError as e:
        assert "Buffer dtype mismatch" in str(e), e
    else:
        raise AssertionError("float32 array accepted as double[:]")
