import numpy as np
def check(mod):
    out = []
    m = np.arange(12.0).reshape(4, 3)
    out.append(mod.describe(m))
    assert mod.describe(m)[1] == 4
    out.append(mod.threads_used(100))
    ts = mod.transpose_sum(m)
    assert np.isclose(ts, sum(m.T[i, j] * (i + 1) for i in range(3) for j in range(4)))
    out.append(ts)
    out.append(mod.make_buffer(7))
    out.append(mod.cached_square(5)); out.append(mod.cached_square(5))
    out.append(mod.last_items(np.arange(10.0), 3))
    assert mod.last_items(np.arange(10.0), 3) == [9.0, 8.0, 7.0]
    try:
        mod.checked(np.zeros(3), 5)
    except IndexError as e:
        out.append(str(e))
    else:
        raise AssertionError("no IndexError")
    try:
        mod.safe_div(np.ones(4), np.array([1.0, 0.0, 2.0, 4.0]))
    except ZeroDivisionError as e:
        out.append(str(e))
    else:
        raise AssertionError("no ZeroDivisionError")
    out.append(mod.TOTAL)
    return out
def check2(mod):
    return mod.view_arrays(4)
_c1 = check
def check(mod):
    r = _c1(mod)
    v = check2(mod)
    assert v == (0, [1.5, 1.5, 1.5]), v
    return r + [v]
