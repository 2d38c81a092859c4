import numpy as np


def raises(exc, f, *args):
    try:
        f(*args)
    except exc as e:
        return str(e)
    raise AssertionError('no %s' % exc.__name__)


def check(mod):
    a = np.arange(5.0)
    assert mod.scratch(a, 3) == -6.0
    assert abs(mod.scratch(np.arange(3.0) * 0.1, 2) - 0.8) < 1e-15
    assert 'Out of bounds' in raises(IndexError, mod.scratch, a, 100)
    assert mod.loops(6) == [0, 0, -1, 2, -2, -3]
    assert (mod.swallow(1), mod.swallow(0), mod.override()) == (0, 2, 1)
    assert raises(ValueError, mod.swallow, 2) == 'x'
    assert mod.nested(2) == 0.5
    raises(ZeroDivisionError, mod.nested, 0)
    assert mod.nogil_sum(np.arange(10.0)) == 90.0
    assert mod.in_prange(np.arange(8.0)) == 56.0
    assert mod.log == [('freed', 3), ('freed', 2), ('freed', 100), 'override', 'inner', 'outer',
                       'inner', 'outer']
