import math
import numpy as np


def check(mod):
    init = np.arange(20, dtype=float).reshape(5, 4)
    dt, steps = 0.25, 3
    out, energy, last = mod.simulate(init, dt, steps)
    pos = init[:, :2] + steps * dt * init[:, 2:]
    assert out == [tuple(r) for r in pos.tolist()]
    vel = init[:, 2:]
    expect = sum(0.5 * (1.0 + i) * math.hypot(*vel[i]) ** 2 for i in range(5))
    assert abs(energy - expect) <= 1e-12 * expect
    assert last == ({'x': pos[4, 0], 'y': pos[4, 1]}, 10.0, 4)

    p, arr, origin, size, psize = mod.locals_(1.5)
    assert p == {'x': 2.5, 'y': 2.0}
    assert arr == [{'x': 1.5, 'y': 2.0}, {'x': -1.5, 'y': 5.0}, {'x': 1.5, 'y': 7.0}]
    assert origin == {'x': 1.5 - 3.0, 'y': 10.0}
    assert (size, psize) == (16, 5)
    origin = mod.locals_(0.0)[2]
    assert origin == {'x': 0.0, 'y': 20.0}  # the module variable keeps its y

    n, s = mod.from_python({'x': 3, 'y': 4, 'extra': 'ignored'}, {'x': 1.0, 'y': 0.5})
    assert (n, s) == (5.0, {'x': 4.0, 'y': 4.5})
    for bad, exc, msg in (
            (3, TypeError, 'Expected a mapping, got int'),
            ({'x': 1.0}, ValueError, "No value specified for struct attribute 'y'"),
            ({'x': 1.0, 'y': 'a'}, TypeError, 'must be real number, not str')):
        try:
            mod.from_python(bad, {'x': 0, 'y': 0})
        except exc as e:
            assert str(e).startswith(msg), str(e)
        else:
            raise AssertionError('no %s for %r' % (exc.__name__, bad))
    try:
        mod.from_python({'x': 0, 'y': 0}, {'y': 1})
    except ValueError as e:
        assert str(e).startswith("No value specified for struct attribute 'x'"), str(e)
    else:
        raise AssertionError('no ValueError')
