import numpy as np
def fnv(b):
    h = 2166136261
    for x in b:
        h = ((h ^ x) * 16777619) & 0xffffffff
    return h
def check(mod):
    out = []
    texts = [b"", b"a", b"hello world\nfoo  bar\n\tbaz\n", bytes(x for x in range(256) if x not in (11, 12, 28, 29, 30, 31, 133, 160)) * 7]
    for t in texts:
        r = mod.wc(t)
        assert r[0] == t.count(b"\n") and r[2] == len(t)
        assert r[1] == len(t.split()), (r, len(t.split()))
        out.append(r)
        if t:
            h = mod.chunk_hashes(t, 5)
            assert list(h) == [fnv(t[i:i + 5]) for i in range(0, len(t), 5)]
            out.append(h)
        out.append(mod.first_zero(t))
    return out
