import json
import os

import numpy as np


def serial_shift(x, y):
    # the serial meaning, element by element, on the same memory
    for j in range(1, x.shape[0]):
        y[j] = x[j - 1] + 1.0


def serial_shift2d(x, y):
    for i in range(x.shape[0]):
        for j in range(1, x.shape[1]):
            y[i, j] = x[i, j - 1] + 1.0


def serial_rows_from(a, out, off):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = a[i, j + off] * 2 + 1


def variants():
    """The kernel variants the trace says ran, in call order ([] natively)."""
    path = os.environ.get("CYOCL_TRACE")
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        recs = [json.loads(line) for line in f]
    return [r.get("variant", "") for r in recs if r.get("impl") == "opencl"]


def check(mod):
    opencl = os.environ.get("CYOCL_FORCE") == "opencl"
    rng = np.random.default_rng(15)
    seen = []

    def ran(expect):
        # under CYOCL_FORCE=opencl (with a device) the trace names the variant
        v = variants()
        if opencl and len(v) > len(seen):
            assert v[-1] == expect, (v[-1], expect)
        seen[:] = v

    # the case: 2e6 elements, which PoCL and the H100 both got wrong
    n = 2_000_000
    a = np.zeros(n)
    mod.shift(a, a)
    assert np.array_equal(a, np.arange(n, dtype=np.float64)), "shift(a, a)"
    ran("serial: views overlap")

    # distinct arrays: the collapsed kernel, same results
    x = rng.standard_normal(n)
    y = np.zeros(n)
    mod.shift(x, y)
    want = np.zeros(n)
    want[1:] = x[:-1] + 1.0
    assert np.array_equal(y, want), "shift(x, y)"
    ran("collapsed")

    m = 20_000
    cases = {
        "overlapping slices": lambda b: (b[:-1], b[1:]),
        "strided, same view": lambda b: (b[::2], b[::2]),
        "reversed, same view": lambda b: (b[::-1], b[::-1]),
        "reversed and shifted": lambda b: (b[::-1][1:], b[::-1][:-1]),
        "interleaved": lambda b: (b[::2], b[1::2]),
    }
    for label, views in cases.items():
        base = rng.standard_normal(m)
        ref = base.copy()
        serial_shift(*views(ref))
        mod.shift(*views(base))
        assert np.array_equal(base, ref), label
        ran("serial: views overlap")

    # 2-D: the rows are independent (the prange), j is serial within a row
    u = rng.standard_normal((300, 400))
    ref = u.copy()
    serial_shift2d(ref, ref)
    mod.shift2d(u, u)
    assert np.array_equal(u, ref), "shift2d(u, u)"
    ran("serial: views overlap")
    u = rng.standard_normal((300, 401))
    ref = u.copy()
    serial_shift2d(ref[:, :-1], ref[:, 1:])
    mod.shift2d(u[:, :-1], u[:, 1:])
    assert np.array_equal(u, ref), "shift2d(u[:, :-1], u[:, 1:])"
    ran("serial: views overlap")
    u = rng.standard_normal((300, 400))
    v = np.zeros((300, 400))
    mod.shift2d(u, v)
    want = np.zeros_like(v)
    want[:, 1:] = u[:, :-1] + 1.0
    assert np.array_equal(v, want), "shift2d(u, v)"
    ran("collapsed")

    # element for element in place: correct with either kernel
    s = rng.standard_normal((64, 96)).astype(np.float32)
    want = s * np.float32(3.0)
    mod.scale_into(s, s, 3.0)
    assert np.array_equal(s, want), "scale_into(s, s)"
    t = np.empty_like(s)
    mod.scale_into(s, t, 0.5)
    assert np.array_equal(t, s * np.float32(0.5)), "scale_into(s, t)"
    ran("collapsed")

    # integer rows read ahead of where they are written, in the same array
    a = rng.integers(-1000, 1000, (50, 70))
    ref = a.copy()
    serial_rows_from(ref, ref[:, :60], 3)
    mod.rows_from(a, a[:, :60], 3)
    assert np.array_equal(a, ref), "rows_from(a, a[:, :60], 3)"
    ran("serial: views overlap")
    out = np.zeros((50, 60), dtype=a.dtype)
    mod.rows_from(a, out, 10)
    assert np.array_equal(out, a[:, 10:70] * 2 + 1), "rows_from(a, out, 10)"
    ran("collapsed")
