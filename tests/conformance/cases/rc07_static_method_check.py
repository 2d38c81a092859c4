def check(mod):
    v = mod.Vec.origin()
    assert (v.x, v.y) == (0.0, 0.0)
    assert mod.Vec.from_pair((1, 2), scale=2.0).y == 4.0
    assert mod.Vec.from_pair.__doc__ == "Build from a pair."
    assert mod.Vec(3, 4).norm2() == 25.0
    vs = mod.build(3)
    assert [(a.x, a.y) for a in vs] == [(0.0, 0.0), (1.0, 2.0), (2.0, 4.0)]
    assert mod.total_dot(vs) == 25.0
    assert mod.Vec(1, 1).origin().x == 0.0           # through an instance too
    assert not hasattr(mod, 'origin') and not hasattr(mod.Vec, 'make')
