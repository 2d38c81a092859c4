import numpy as np


def mix64(z):
    M = (1 << 64) - 1
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    return z ^ (z >> 31)


def check(m):
    a = np.arange(-6, 6, dtype=np.intc).reshape(3, 4)
    ref = np.clip(a, -2, 3) * 5
    assert m.clip_scale(a, -2, 3, 5) == (3, ref.sum())
    v = np.linspace(0, 1, 101)
    s, name = m.total(v)
    assert name == "float" and abs(s - v.sum()) < 1e-9
    f = np.array([1.1, 3.3], dtype=np.float32)
    a32, w = m.products(f)
    assert a32 == float(f[0] * f[1])                   # rounded to float
    assert w == float(f[0]) * float(f[1])              # double arithmetic
    assert a32 != w
    t, sq, n = m.mixed(np.arange(4.0), [0, 1, 2])
    assert sq == 10 ** 20 and n == 3
    assert t == sum(x * 2.0 + 3.75 for x in (0.0, 1.0, 2.0))
    hs, top = m.hashes(5)
    assert hs == [mix64(i) for i in range(5)] and top == 2 ** 64 - 1
