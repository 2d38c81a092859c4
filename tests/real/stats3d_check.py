import numpy as np
def check(mod):
    rng = np.random.default_rng(8)
    out = []
    for shape in ((1, 1, 1), (5, 7, 3), (64, 33, 4)):
        img = rng.random(shape)
        m = mod.channel_mean(img)
        assert np.allclose(m, img.mean((0, 1)))
        out.append(m)
        out.append(mod.channel_mean(img.astype(np.float32)))
        out.append(mod.channel_mean(img[::2, ::-1, :]))
        s = mod.strided_sum(img, 2)
        ref = sum(img[i, j, -1] for i in range(0, shape[0], 2) for j in range(shape[1] - 1, -1, -2))
        assert np.isclose(s, ref)
        out.append(s)
    a = rng.standard_normal((100, 10))
    ref = np.clip(a, -1, 1); nclip = int(((a < -1) | (a > 1)).sum())
    assert mod.clip_rows(a, -1.0, 1.0) == nclip and np.array_equal(a, ref)
    out.append(a)
    v = rng.random(40) + 0.5
    p, bits = mod.prod_reduce(v)
    assert np.isclose(p, np.prod(v))
    rb = 0
    for i in range(40): rb |= int(v[i] > 1.0) << (i % 8)
    assert bits == rb
    out.append((p, bits))
    out.append(mod.find_first_negative(v)); out.append(mod.find_first_negative(np.concatenate([v, [-1.0]])))
    return out
