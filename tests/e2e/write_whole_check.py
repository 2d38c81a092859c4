import json
import os

import numpy as np


def check(mod):
    n, m = 37, 29
    a = np.arange(n * m, dtype=np.float64).reshape(n, m) - 100
    out = np.full((n, m), 7.0)
    mod.fill2(a, out)
    assert np.array_equal(out, 2 * a)
    # a C-contiguous block of rows of a bigger array: the rows around it stay
    big = np.full((n + 2, m), 7.0)
    mod.fill2(a, big[1:-1])
    assert np.array_equal(big[1:-1], 2 * a) and (big[0] == 7).all() and (big[-1] == 7).all()
    # a strided view: its gaps keep their values
    x = np.arange(50.0)
    s = np.full(100, 7.0)
    mod.fill1(x, s[::2])
    assert np.array_equal(s[::2], x + 1) and (s[1::2] == 7).all()
    # written in part: the rest keeps its values
    y = np.arange(-20.0, 20.0)
    o = np.full(40, 7.0)
    mod.some(y, o)
    assert np.array_equal(o, np.where(y > 0, y, 7.0))
    o = np.full(40, 7.0)
    mod.shorter(y, o)
    assert np.array_equal(o[:-1], y[:-1]) and o[-1] == 7.0

    o2 = np.full((n, m), 7.0)
    mod.moved_j(a, o2)
    h = (m + 1) // 2
    assert np.array_equal(o2[:, :h], a[:, :h]) and (o2[:, h:] == 7).all()

    # under CYOCL_FORCE=opencl, fill2's out never went up: its bytes to
    # the device are a's alone (the first call, whose views were not yet
    # on the device)
    trace = os.environ.get("CYOCL_TRACE")
    if os.environ.get("CYOCL_FORCE") == "opencl" and trace and os.path.exists(trace):
        with open(trace) as f:
            recs = [json.loads(line) for line in f]
        fill = [r for r in recs if r.get("function") == "fill2" and r.get("impl") == "opencl"]
        if fill:
            assert fill[0]["bytes_to_device"] == a.nbytes, fill[0]
            shorter = [r for r in recs if r.get("function") == "shorter" and r.get("impl") == "opencl"]
            assert shorter and shorter[0]["bytes_to_device"] == 2 * y.nbytes, shorter[0]
