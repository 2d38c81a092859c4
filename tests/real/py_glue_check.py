import numpy as np


def check(mod):
    lines = ["gain = 2", "# comment", "shift=-0.5", "bad line"]
    rng = np.random.default_rng(11)
    vals = rng.uniform(-1, 1, (50, 4))
    rows = [("r%d" % i, *map(lambda x: repr(float(x)), v)) for i, v in enumerate(vals)]
    sums, moved, calls, cfg = mod.run(lines, rows)
    assert cfg == [("gain", 2.0), ("shift", -0.5)]
    assert np.allclose(sums, vals.sum(axis=1) * 2.0, rtol=1e-12)
    assert calls == 50
    want = [s * (i % 3 + 1) - 0.5 for i, s in enumerate(sums)]
    assert np.allclose(moved, want, rtol=1e-12)
    return [sums, moved, calls, cfg]
