import numpy as np


def expect(exc, fn, *a, **k):
    try:
        fn(*a, **k)
    except exc as e:
        return str(e)
    raise AssertionError("no %s" % exc.__name__)


def check(m):
    x = np.linspace(-2.0, 3.0, 11)
    assert m.scaled_sum(x) == x.sum()
    assert m.scaled_sum(x, scale=2.0, n_threads=1) == 2.0 * x.sum()
    assert np.array_equal(m.clip_into(x, hi=1.0), np.clip(x, 0.0, 1.0))
    assert np.array_equal(m.clip_into(x, -1.0, hi=2.0), np.clip(x, -1.0, 2.0))
    out = np.zeros(11)
    assert m.clip_into(x, lo=-0.5, hi=0.5, out=out) is out
    assert np.array_equal(out, np.clip(x, -0.5, 0.5))
    assert m.both(x) == (0.5 * x.sum(), 0.0)
    msg = expect(TypeError, m.scaled_sum, x, 2.0)
    assert msg == "scaled_sum() takes exactly 1 positional argument (2 given)", msg
    assert expect(TypeError, m.clip_into, x) == "clip_into() needs keyword-only argument hi"
    assert expect(TypeError, m.clip_into, x, 0.0, 1.0) == "clip_into() takes at most 2 positional arguments (3 given)"
    assert "unexpected keyword argument" in expect(TypeError, m.scaled_sum, x, factor=1.0)
    return msg
