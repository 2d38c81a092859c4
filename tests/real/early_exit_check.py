import numpy as np


def check(mod):
    rng = np.random.default_rng(29)
    res = []
    x = rng.normal(size=(500, 40))
    fc = np.empty(500, np.int32)
    mod.first_crossing(x, 2.0, fc)
    above = x > 2.0
    want = np.where(above.any(1), above.argmax(1), -1)
    assert (fc == want).all()
    res.append(fc)
    cr = rng.uniform(-2, 0.6, 4000); ci = rng.uniform(-1.2, 1.2, 4000)
    et = np.empty(4000, np.int32)
    mod.escape(cr, ci, 200, et)
    zr = np.zeros(4000); zi = np.zeros(4000); w = np.full(4000, 200, np.int32)
    alive = np.ones(4000, bool)
    with np.errstate(all='ignore'):
      for k in range(200):
          t = zr * zr - zi * zi + cr
          zi = 2 * zr * zi + ci
          zr = t
          esc = alive & (zr * zr + zi * zi > 4.0)
          w[esc] = k
          alive &= ~esc
    assert (et == w).all()
    res.append(et)
    rows = rng.integers(-3, 10, (300, 25)).astype(np.int64)
    found = np.empty(300, np.int64)
    mod.pair_search(rows, 11, found)
    for i in range(300):
        h = -1
        for j in range(25):
            if rows[i, j] == 0:
                continue
            for k in range(j + 1, 25):
                if rows[i, k] != 0 and rows[i, j] + rows[i, k] == 11:
                    h = j * 25 + k
                    break
            if h >= 0:
                break
        assert found[i] == h, i
    res.append(found)
    v = rng.uniform(0, 9, 5000)
    out = np.empty(5000)
    mod.safe_roots(v, out)
    assert np.allclose(out, np.sqrt(v), rtol=1e-15, atol=0)
    v[1234] = -1.0
    try:
        mod.safe_roots(v, out)
    except ValueError as e:
        assert "negative input -1.0" in str(e)
        res.append(str(e))
    else:
        raise AssertionError("no ValueError")
    y = rng.normal(size=(200, 30)) * 1.5
    y[rng.random((200, 30)) < 0.05] = np.nan
    cn = np.empty(200, np.int32)
    mod.count_until_nan(y, cn)
    for i in range(200):
        c = 0
        for j in range(30):
            if y[i, j] != y[i, j]:
                break
            c += abs(y[i, j]) < 1
        assert cn[i] == c
    res.append(cn)
    return res
