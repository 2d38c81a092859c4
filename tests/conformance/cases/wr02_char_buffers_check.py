import numpy as np


def check(mod):
    v = np.array([-128, -3, 0, 5, 127] * 40, np.int8)
    out = np.empty(v.size, np.int64)
    mod.weigh(v, out)
    assert (out == v.astype(np.int64) * 3 + (v.astype(np.int64) >> 1)).all()
    s = np.frombuffer(b"Az\xff\x80" * 10, dtype="S1")
    out = np.empty(s.size, np.int64)
    mod.weigh(s, out)
    w = np.frombuffer(b"Az\xff\x80" * 10, np.int8).astype(np.int64)
    assert (out == w * 3 + (w >> 1)).all()
    c = memoryview(b"\x01\xff\x80").cast("c")
    assert mod.usum(c) == 1 + 255 + 128
    assert mod.ssum(c) == 1 - 1 - 128
    for bad in (np.zeros(4, np.uint8), np.zeros(4, np.bool_), bytearray(b"ab")):
        try:
            mod.weigh(bad, np.empty(4, np.int64))
        except ValueError as e:
            assert "Buffer dtype mismatch" in str(e), e
        else:
            raise AssertionError(type(bad))
