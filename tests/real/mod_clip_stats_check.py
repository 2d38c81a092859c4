import numpy as np


def check(mod):
    rng = np.random.default_rng(8)
    out = []
    for n in (0, 1, 100001):
        x = rng.standard_normal(n) * 3
        x0 = x.copy()
        r = mod.clip_stats(x, 2.0)
        ref = np.clip(x0, -2.0, 2.0)
        assert np.array_equal(x, ref)
        assert set(r) == {"stat_0", "stat_1", "stat_2"}
        assert abs(r["stat_0"] - ref.sum()) <= 1e-9 * max(1.0, np.abs(ref).sum())
        assert abs(r["stat_1"] - np.abs(ref).sum()) <= 1e-9 * max(1.0, np.abs(ref).sum())
        assert r["stat_2"] == int(np.count_nonzero(np.abs(x0) > 2.0))
        out.append((x, r["stat_2"]))
    y = np.array([5.0, -0.5])
    mod.clip_stats(y)
    assert y.tolist() == [3.0, -0.5]
    try:
        mod.clip_stats(y, -1.0)
    except ValueError as e:
        assert str(e) == "limit must be positive, got -1.0", e
    else:
        raise AssertionError("negative limit accepted")
    a = rng.integers(-1000, 1000, 777)
    assert mod.int_range(a) == (a.min(), a.max(), a.max() - a.min())
    assert mod.int_range(np.zeros(0, dtype=np.int64)) is None
    assert mod.clip_stats.__doc__.startswith("clip_stats(") or "Clips x" in mod.clip_stats.__doc__
    out.append(mod.int_range(a))
    return out
