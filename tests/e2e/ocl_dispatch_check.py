import json
import os

import numpy as np


def check(mod):
    x = np.arange(1000.0)
    assert mod.first_over(x, 1e9) == 999
    i = mod.first_over(x, 500.5)
    assert 501 <= i < 1000 and x[i] > 500.5, i

    a = np.arange(-50, 50)
    mod.floordiv(a, 7)
    assert np.array_equal(a, np.arange(-50, 50) // 7)
    try:
        mod.floordiv(a, 0)
    except ZeroDivisionError as e:
        assert "division" in str(e)
    else:
        raise AssertionError("no ZeroDivisionError")

    for n in (0, 1, 1000, 70_001):
        v = (np.arange(n) % 97 - 40).astype(np.int32)
        assert mod.sub_sum(v) == 5 - int(v.sum()), n
        xo = 12345
        for e in v:
            xo ^= int(e) & 0xFFFFFFFF
        assert mod.xor_all(v) == xo, n
        f = np.full(n, 0.5, np.float32)
        assert mod.fsum(f) == 1.5 + 0.5 * n, n
    p = np.array([1, -2, 3, 1, 1, -1, 2] * 5, dtype=np.int64)
    assert mod.prod(p) == 3 * int(np.prod(p))

    a = np.arange(11.0)
    out = np.zeros(11)
    assert mod.last_scaled(a, out, 2.0) == (9, 18.0)
    assert np.array_equal(out[1::2], 2.0 * a[1::2]) and not out[0::2].any()

    src = np.arange(10.0)
    idx = np.array([9, 0, 3])
    res = np.zeros(3)
    mod.gather(src, idx, res)
    assert np.array_equal(res, [9.0, 0.0, 3.0])
    bad = np.array([1, 10])
    try:
        mod.gather(src, bad, np.zeros(2))
    except IndexError as e:
        assert "Out of bounds" in str(e), e
    else:
        raise AssertionError("no IndexError")

    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros(3)
    mod.rowsum(a, out)
    assert np.array_equal(out, a.sum(axis=1)), out
    trace = os.environ.get("CYOCL_TRACE")
    if trace and os.path.exists(trace):
        # the dispatcher's size of a call: 3 * (1 + 4), on every line that
        # gives one (a forced native line once carried a stale value)
        with open(trace) as f:
            recs = [json.loads(line) for line in f]
        works = [r.get("work", 15) for r in recs if r.get("function") == "rowsum"]
        assert works and all(w == 15 for w in works), works

    # under CYOCL_FORCE=opencl with a device, the regions ran there
    if os.environ.get("CYOCL_FORCE") == "opencl" and trace and os.path.exists(trace):
        try:
            import cyocl
        except ImportError:
            return
        if cyocl.devices():
            with open(trace) as f:
                impls = {json.loads(line).get("impl") for line in f}
            assert "opencl" in impls, impls
