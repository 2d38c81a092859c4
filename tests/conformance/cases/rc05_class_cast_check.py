def check(mod):
    nodes = [mod.Node(v) for v in (1.5, 2.0, -0.25)]
    assert mod.total(nodes) == 3.25
    assert mod.total([]) == 0.0
    head = None
    for v in (1.0, 2.0, 4.0):
        head = mod.Node(v, head)
    assert mod.chain_sum(head) == 7.0
    assert mod.chain_sum(None) == 0.0
    d = {'a': mod.Node(1.0), 'b': mod.Node(3.0)}
    mod.scale_all(d, 2.0)
    assert (d['a'].value, d['b'].value) == (2.0, 6.0)
    assert mod.checked(mod.Node(5.5)) == 5.5
    try:
        mod.checked([1])
    except TypeError:
        pass
    else:
        raise AssertionError("a list passed <Node?>")
