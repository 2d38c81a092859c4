import numpy as np


def raises(exc, f, *args):
    try:
        f(*args)
    except exc as e:
        return e
    raise AssertionError('no %s' % exc.__name__)


def check(mod):
    assert mod.HAVE is False and mod.log == ['ModuleNotFoundError']
    assert not hasattr(mod, 'err')
    del mod.log[:]
    assert mod.safe_div(1, 2) == 0.5
    assert mod.safe_div(1, 0) is None
    assert mod.safe_div(1, 'a') == 'TypeError'
    assert mod.log == [('ok', 1, 2), 'fin', 'fin', 'fin']
    assert mod.bare(lambda x: 1 // x, 0) == 'caught ZeroDivisionError'
    assert mod.bare(abs, -3) == 3
    e = raises(IndexError, mod.reraise, 5)
    assert str(e) == 'list index out of range' and mod.log[-1] == 'list index out of range'
    assert mod.reraise(1) == 2
    e = raises(TypeError, mod.convert, 'x')
    assert str(e) == "bad 'x'" and isinstance(e.__context__, ValueError)
    assert mod.convert('12') == 12
    assert mod.context(0) == 'ZeroDivisionError'
    assert raises(KeyError, mod.unmatched, 3).args == (3,)
    assert mod.cdef_caller(4) == 8 and mod.cdef_caller(-4) == -1 and mod.log[-1] == 'negative'
    a = np.arange(4.0)
    assert mod.call_careful(a, 3) == 3.0 and mod.call_careful(a, 7) == 0.0
    assert mod.loop([5, 0, 'a', 2, 99, 1]) == [2, 'e', 't', 5, 'e']
    assert mod.handler_exits([1, 1, 2, 1]) == (2, True)
    assert mod.nested_handlers(0) == 'ValueError'
    raises(UnboundLocalError, mod.as_unbound, 0)
    assert mod.as_unbound(1) == 1
    assert mod.region(np.arange(10.0)) == 45.0
    assert mod.region(np.arange(20.0)) == -1.0
    e = raises(RuntimeError, mod.no_active)
    assert str(e) == 'No active exception to reraise'
    try:
        raise KeyError('from caller')
    except KeyError:
        e = raises(KeyError, mod.no_active)
        assert e.args == ('from caller',)
    e = raises(KeyError, mod.chained, 'q')
    assert isinstance(e.__cause__, ValueError) and e.__suppress_context__
    e = raises(KeyError, mod.quiet, 'q')
    assert e.__cause__ is None and e.__suppress_context__ and isinstance(e.__context__, ValueError)
    import sys
    o = object()
    before = sys.getrefcount(o)
    for _ in range(100):
        assert mod.finally_wins(o) == 'finally'
    assert sys.getrefcount(o) == before
