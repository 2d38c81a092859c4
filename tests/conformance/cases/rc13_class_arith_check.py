def ex(f):
    try:
        return f()
    except Exception as e:
        return type(e).__name__, str(e)


def check(mod):
    V = mod.Vec
    assert [repr(x) for x in mod.combo()] == ['Vec(5, 8)', 'Vec(-2, -2)', 'Vec(2, 4)', 'Vec(3, 6)', 'Vec(1.5, 2)',
                                               'Vec(-1, -2)', '5.0', 'True']
    m = mod.__name__
    assert ex(lambda: V(1, 1) + 1) == ('TypeError', "unsupported operand type(s) for +: '%s.Vec' and 'int'" % m)
    assert ex(lambda: 1 + V(1, 1)) == ('TypeError', "unsupported operand type(s) for +: 'int' and '%s.Vec'" % m)
    assert ex(lambda: V(1, 1) - 1)[0] == 'TypeError'
    assert repr(0.5 * V(2, 2)) == 'Vec(1, 1)'
    v = V(1, 1)
    w = v
    v += V(2, 3)
    assert v is w and repr(v) == 'Vec(3, 4)'
    assert ex(lambda: V() @ V())[0] == 'TypeError'
