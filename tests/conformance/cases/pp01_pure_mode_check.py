import numpy as np


def check(m):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 17))
    out = np.zeros(300)
    got = m.norms(a, out)
    assert np.array_equal(got, out)
    # the same additions in the same order as the loop: exact
    want = np.zeros(300)
    for j in range(17):
        want = want + a[:, j] * a[:, j]
    assert np.array_equal(out, want), np.abs(out - want).max()
    assert m.tri(10) == 45 and m.tri(0) == 0 and m.tri(100000) == 4999950000
    v = np.arange(4, dtype=np.float32)
    assert m.scale(v, 2.5) == 4 and v.tolist() == [0.0, 2.5, 5.0, 7.5]
    try:
        m.norms(a, np.zeros(300, dtype=np.float32))
    except ValueError as e:
        assert "Buffer dtype mismatch" in str(e), e
    else:
        raise AssertionError("float32 out accepted")
