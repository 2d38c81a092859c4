import os
from fractions import Fraction

import numpy as np

# the GPU plans on whatever device runs the kernels (PoCL here): set before
# the first launch, when the runtime reads it
os.environ["CYOCL_PLAN"] = "gpu"


def orders(a, b, init):
    """Each element's sum in the source's order, k increasing, from init:
    unfused (a product and a sum, each rounded) and fused (one rounding per
    update: the exact a*b + s, rounded, as fma() gives)."""
    n, m = a.shape[0], b.shape[1]
    plain, fused = np.array(init, dtype=np.float64), np.array(init, dtype=np.float64)
    for k in range(a.shape[1]):
        plain = plain + np.multiply.outer(a[:, k], b[k, :])
    for i in range(n):
        for j in range(m):
            s = Fraction(fused[i, j])
            for k in range(a.shape[1]):
                s = Fraction(float(Fraction(a[i, k]) * Fraction(b[k, j]) + s))
            fused[i, j] = float(s)
    return plain, fused


def one_of(got, want, what):
    # --fp-contract allows fusing: the compiler of each side decides (GCC on
    # baseline x86-64 has no FMA; PoCL on a CPU with FMA fuses), one way for
    # the whole kernel, never another order
    ok = [name for name, w in zip(("unfused", "fused"), want) if got.tobytes() == w.tobytes()]
    assert ok, "%s: %d elements differ from the unfused order, %d from the fused one" % (
        what, np.count_nonzero(got != want[0]), np.count_nonzero(got != want[1]))


def check(mod):
    rng = np.random.default_rng(23)
    for n, k, m in [(1, 1, 1), (70, 9, 130), (65, 17, 129), (3, 40, 5), (0, 5, 3), (130, 0, 7)]:
        x, w, bias = rng.standard_normal((n, k)), rng.standard_normal((k, m)), rng.standard_normal(m)
        out = np.full((n, m), np.nan)
        mod.layer(x, w, bias, out)
        plain, fused = orders(x, w, np.broadcast_to(bias, (n, m)))
        shrink = lambda s: np.abs(s) / (1.0 + np.abs(s))  # noqa: E731
        one_of(out, (shrink(plain), shrink(fused)), "layer %s" % ((n, k, m),))
        c = np.full((n, m), np.nan)
        mod.matmul(np.asfortranarray(x), w, c)
        plain, fused = orders(x, w, np.zeros((n, m)))
        one_of(c, (plain, fused), "matmul %s" % ((n, k, m),))
