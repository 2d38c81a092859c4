import numpy as np


def check(mod):
    rng = np.random.default_rng(181)
    x = rng.random((300, 129))
    out = np.zeros_like(x)
    for mean in (x.mean(axis=1, keepdims=True), x.mean(axis=0, keepdims=True), np.full((1, 1), 0.5)):
        mod.center(out, x, np.ascontiguousarray(mean))
        assert np.array_equal(out, x - mean), mean.shape
    col, row = rng.random((300, 1)), rng.random((1, 129))
    mod.outer(out, col, row)
    assert np.array_equal(out, col * row)
    mod.outer(out[::2], col[::2], row)
    assert np.array_equal(out[::2], col[::2] * row)
    xf = rng.random((64, 33), dtype=np.float32)
    of = np.zeros_like(xf)
    for b in (rng.random(33, dtype=np.float32), rng.random(1, dtype=np.float32)):
        mod.softish(of, xf, b)
        assert np.allclose(of, np.exp(xf + b), rtol=1e-6), b.shape
    for sa, sb in [((300, 1), (1, 129)), ((1, 129), (300, 129)), ((300, 129), (1, 1))]:
        a, b = rng.random(sa), rng.random(sb)
        assert np.isclose(mod.total(a, b), (a * b).sum()), (sa, sb)
    for bad in (lambda: mod.center(out, x, np.zeros((299, 1))),
                lambda: mod.outer(out, col, rng.random((2, 129))),
                lambda: mod.outer(np.zeros((1, 129)), x, row),       # the target does not stretch
                lambda: mod.softish(of, xf, np.zeros(2, dtype=np.float32)),
                lambda: mod.total(rng.random((3, 4)), rng.random((4, 4)))):
        try:
            bad()
        except ValueError as e:
            assert "shape" in str(e), str(e)
        else:
            raise AssertionError("extents neither equal nor 1 must raise ValueError")
