import numpy as np

def check(mod):
    rng = np.random.default_rng(2)
    a = rng.random(1000)
    s, where, x = mod.copy_and_sum(a)
    assert np.isclose(s, a.sum()) and where == int(np.argmax(a)) and x == 7.5

    assert mod.grow(50) == sum(k * k for k in range(50))

    m = rng.random((40, 30))
    m2 = m.copy()
    mod.row_scale(m2, 3.0)
    assert np.allclose(m2, 3.0 * m)

    out = np.zeros(40)
    mod.scratch_sums(m, out)
    assert np.allclose(out, (m * m).sum(axis=1))

    count, ok = mod.locked_count(10_000, 4)
    assert count == sum(i % 3 for i in range(10_000)) and ok

    seen = np.zeros(3, dtype=np.int32)
    assert mod.thread_ids(0, seen) == 0
    assert set(seen.tolist()) <= {0, 1, 2, 3} and seen[0] >= 1

    assert np.isclose(mod.gated(a, 5), a.sum())
    assert np.isclose(mod.gated(a, 500), a.sum())
    assert np.isclose(mod.par_sum(a), a.sum())
    assert mod.hello(3) == 3
