import numpy as np

def check(mod):
    rng = np.random.default_rng(5)
    for dt in (np.float32, np.float64):
        x = rng.random(10_001).astype(dt)
        want = (x * 1.5).astype(dt)
        mod.scale(x, 1.5)
        assert np.allclose(x, want, rtol=1e-6), dt
    for dt in (np.int16, np.int32, np.int64):
        v = rng.integers(0, 40, 5000).astype(dt)
        counts = np.zeros(40, np.int64)
        mod.histogram(v, counts)
        assert (counts == np.bincount(v.astype(np.int64), minlength=40)).all(), dt
    try:
        mod.histogram(np.zeros(3, np.int8), np.zeros(4, np.int64))
    except TypeError as e:
        assert "No matching signature found" in str(e), e
    else:
        raise AssertionError("int8 matched integral")
    for adt in (np.float32, np.float64):
        for idt in (np.int16, np.int32, np.int64):
            a = rng.random(300).astype(adt)
            idx = rng.integers(0, 300, 2000).astype(idt)
            assert np.isclose(mod.gather_sum(a, idx), float(a.astype(np.float64)[idx].sum()), rtol=1e-6), (adt, idt)
    assert mod.clamp(5, 0, 3) == 3 and mod.clamp(-2, 0, 3) == 0 and mod.clamp(2, 0, 3) == 2
    try:
        mod.clamp(1.5, 0, 3)
    except TypeError as e:
        assert "No matching signature found" in str(e), e
    else:
        raise AssertionError("a float matched integral")
    v = rng.integers(-10, 10, 100).astype(np.int32)
    w = v.copy()
    mod.clamp_all(w, -3, 4)
    assert (w == np.clip(v, -3, 4)).all()
    for dt in (np.int16, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128):
        v = (rng.integers(-5, 5, 50) + (1j * rng.integers(-5, 5, 50) if np.dtype(dt).kind == "c" else 0)).astype(dt)
        got = mod.total(v)
        assert np.isclose(got, v.astype(np.complex128).sum()), (dt, got)
        assert type(got) is (complex if np.dtype(dt).kind == "c" else float if np.dtype(dt).kind == "f" else int), (dt, got)
    assert mod.kind(1) == "long" and mod.kind(1.0) == "double" and mod.kind(True) == "long"
    assert mod.kind(1j) == "double complex"
    try:
        mod.kind("1")
    except TypeError as e:
        assert "No matching signature found" in str(e), e
    else:
        raise AssertionError("a str matched numeric")
