import enum
import numpy as np


def check(mod):
    S = mod.Shape
    assert issubclass(S, enum.IntEnum) and S.__module__ == mod.__name__
    assert [(m.name, int(m)) for m in S] == [('SQUARE', 1), ('CIRCLE', 2), ('TRIANGLE', 5)]
    assert not hasattr(mod, 'SQUARE') and not hasattr(mod, 'Plain') and not hasattr(mod, 'P0')
    assert (mod.LIMIT_LO, mod.LIMIT_HI) == (-2, -1) and type(mod.LIMIT_HI) is int
    r = mod.members()
    assert r[0] is S.SQUARE and r[1] is S.CIRCLE and r[2] is S.TRIANGLE
    assert r[3] == 1 and type(r[3]) is int and r[4] is True
    assert mod.area_kind(S.CIRCLE) is S.CIRCLE and mod.area_kind(5) is S.TRIANGLE
    odd = mod.shape_of(7)
    assert isinstance(odd, S) and int(odd) == 7 and repr(odd) == '<Shape: 7>'
    assert repr(mod.shape_of(2)) == '<Shape.CIRCLE: 2>'
    x = np.array([0.5, 1.5, 2.5, 0.1])
    out = np.zeros(4, dtype=np.intc)
    mod.classify(x, out)
    assert out.tolist() == [1, 2, 3, 1]
