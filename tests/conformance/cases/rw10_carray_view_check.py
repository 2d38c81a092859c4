import numpy as np


def check(mod):
    idx = np.array([0, 3, 5, 15, 16, 19, 3], dtype=np.intc)
    table = [i * i for i in range(16)]
    table[3] += 100
    total, t3, n = mod.table_lookup(idx)
    assert (total, t3, n) == (sum(table[i % 16] for i in idx.tolist()), 109, 16)
    g, r, c = mod.grid()
    expect = [[i * 10 + j for j in range(4)] for i in range(3)]
    expect[2][3] = -1
    assert (g, r, c) == (expect, 3, 4)
