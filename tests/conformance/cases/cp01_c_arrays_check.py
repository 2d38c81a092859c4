import numpy as np

def check(mod):
    t, mn, b3, sv, sm, sb = mod.basics()
    assert t == 3.5 * 1 + 2.5 * 2 + 1.5 * 3, t
    assert mn == 12 + 4
    assert b3 == 1 << 3
    assert (sv, sm, sb) == (24, 24, 32)

    rng = np.random.default_rng(5)
    a = rng.random(10_001)
    out = np.zeros_like(a)
    mod.private_array(a, out)
    assert np.allclose(out, a + 2 * a * a + 3.0)

    img = rng.random((64, 80))
    out2 = np.zeros_like(img)
    mod.smooth3x3(img, out2)
    k = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16
    ref = np.zeros_like(img)
    for di in range(3):
        for dj in range(3):
            ref[1:-1, 1:-1] += k[di, dj] * img[di:di + 62, dj:dj + 78]
    assert np.allclose(out2, ref)

    out3 = np.zeros_like(a)
    mod.window_max(a, out3)
    ref3 = np.zeros_like(a)
    ref3[2:-2] = np.max(np.stack([a[d:d + len(a) - 4] for d in range(5)]), axis=0)
    assert np.array_equal(out3, ref3)

    v, m, table = mod.as_lists()
    assert v == [3.0, 5.0, 1.0] and m == [[1, 2], [3, 4]] and table == [3, 1, 4, 9]
