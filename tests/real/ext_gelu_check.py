import math

import numpy as np


def ref(x, kind):
    if kind == 0:
        return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))
    if kind == 1:
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))
    return x / (1.0 + np.exp(-x))


def check(mod):
    rng = np.random.default_rng(18)
    out = []
    for kind in (mod.Act.GELU_EXACT, 1, "SILU"):
        x = rng.standard_normal((301, 17)) * 3
        want = ref(x, int(mod.Act[kind] if isinstance(kind, str) else kind))
        got = mod.activate(x, kind)
        assert isinstance(got, mod.Act)
        assert np.allclose(x, want, rtol=1e-12, atol=1e-14), np.abs(x - want).max()
        out.append((int(got), x))
    assert int(mod.activate(np.zeros((2, 2)), 7)) == 7   # a pseudo-member, as Cython's
    for bad in ("RELU", "gelu_exact"):
        try:
            mod.activate(np.zeros((2, 2)), bad)
        except ValueError as e:
            assert str(e) == "unknown activation %r" % (bad,)
            assert isinstance(e.__cause__, KeyError) and e.__suppress_context__
        else:
            raise AssertionError("accepted %r" % (bad,))
    assert mod.safe_mean([1, 2, 3.5]) == 6.5 / 3
    assert mod.safe_mean(["a"]) is None
    assert math.isnan(mod.safe_mean([]))   # cdivision=True: C's 0.0 / 0, no ZeroDivisionError
    assert mod.info()["kinds"] == ["GELU_EXACT", "GELU_TANH", "SILU"]
    out.append(mod.info())
    return out
