def check(mod):
    rows, f, s0, s1 = mod.fill(3, 4)
    assert rows == [[float(i * 10 + j) for j in range(4)] for i in range(3)]
    assert (f, s0, s1) == (True, 8, 24)
    assert mod.as_object() == ([[i - j for j in range(3)] for i in range(2)], True)
