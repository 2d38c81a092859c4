import numpy as np


def lev(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for j in range(1, len(b) + 1):
        for i in range(1, len(a) + 1):
            d[i][j] = d[i - 1][j - 1] if a[i - 1] == b[j - 1] else min(d[i - 1][j], d[i][j - 1], d[i - 1][j - 1]) + 1
    return d[len(a)][len(b)]


def raises(f, exc, words):
    try:
        f()
    except exc as e:
        assert words in str(e), (str(e), words)
    else:
        raise AssertionError("no %s" % exc.__name__)


def check(mod):
    for a, b in ((b"kitten", b"sitting"), (b"", b"abc"), (b"flaw", b"lawn"), (b"same", b"same")):
        assert mod.edit_distance(a, b) == (lev(a, b), len(a))
    assert mod.edit_distance(bytearray(b"ab"), b"b") == (1, 2)
    raises(lambda: mod.edit_distance("text", b"x"), TypeError, "expected bytes, str found")
    raises(lambda: mod.edit_distance(None, b"x"), TypeError, "expected bytes, NoneType found")

    data = bytes(range(200)) * 3
    h = 0
    for c in data:
        h = (h * 31 + c) % 1000003
    assert mod.checksum(data, len(data)) == h

    out, zf = mod.grid(-1.0, 0.5, 0.25, 5)
    i, j = np.meshgrid(np.arange(5), np.arange(5), indexing="ij")
    assert np.array_equal(out, (-1.0 + i * 0.25) + 1j * (0.5 + j * 0.25))
    assert zf == complex(3.0, -0.5)

    acc = np.ones((3, 4))
    w = np.arange(4.0)
    assert mod.scaled_add(acc, w, 2) == 1.0
    assert np.array_equal(acc, 1 + 2 * w[None, :].repeat(3, 0))
    mod.scaled_add(acc, w, 0.5)
    assert np.array_equal(acc, 1 + 2.5 * w[None, :].repeat(3, 0))
    raises(lambda: mod.scaled_add(acc, w, "x"), TypeError, "")

    x = np.random.default_rng(3).random((20, 2))
    out = np.full(20, 7.0)
    mod.norms(x, out)
    assert np.array_equal(out, np.sqrt(x[:, 0] * x[:, 0] + x[:, 1] * x[:, 1]) - np.hypot(x[:, 0], x[:, 1]))
