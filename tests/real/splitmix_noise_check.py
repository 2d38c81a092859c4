import numpy as np

M = (1 << 64) - 1


def mix(z):
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def check(mod):
    out = []
    for n, seed in ((0, 1), (7, 3), (5000, 2**63 + 5)):
        u = mod.uniform(n, seed)
        ref = np.array([(mix((seed * n + i) & M) >> 11) * (1.0 / 9007199254740992.0) for i in range(n)])
        assert np.array_equal(u, ref)
        assert ((u >= 0) & (u < 1)).all()
        out.append(u)
    h = mod.coin_flips(3000, 11)
    assert h == sum(mix(11 + i) >> 63 for i in range(3000))
    out.append(h)
    return out
