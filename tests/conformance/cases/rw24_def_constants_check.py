import numpy as np


def check(m):
    x = np.linspace(-1.2, 1.2, 97)
    counts, label = m.histogram(x)
    b = np.trunc((x + 1.0) / 0.25).astype(int)          # <int> truncates toward zero
    ref = np.bincount(b[(b >= 0) & (b < 8)], minlength=8)
    assert label == "histogram" and counts == list(ref), (counts, ref)
    s = m.scaled_sum(x)
    assert abs(s - (x * 0.25 + 4).sum()) < 1e-9
    assert m.constants() == (8, 0.25, 4, -7, -4, 2, 1 << 40, 16, 14)
