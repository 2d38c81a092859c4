import numpy as np


def check(mod):
    rng = np.random.default_rng(31)
    out = []
    for (n, m), w in (((1, 1), 1), ((7, 20), 4), ((500, 300), 17)):
        x = rng.standard_normal((n, m))
        got = mod.row_peak_of_moving_average(x, w)
        c = np.cumsum(np.concatenate([np.zeros((n, 1)), x], axis=1), axis=1)
        ref = ((c[:, w:] - c[:, :-w]) / w).max(axis=1)
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)
        out.append(got)
    try:
        mod.row_peak_of_moving_average(np.ones((2, 3)), 4)
    except ValueError as e:
        assert "window" in str(e)
    else:
        raise AssertionError("no ValueError")
    return out
