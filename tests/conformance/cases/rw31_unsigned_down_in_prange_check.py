import numpy as np
def check(m):
    o = np.zeros((3, 6), dtype=np.int_)
    m.g(6, 3, o)
    assert (o == np.array([[10 * j + i for j in range(6)] for i in range(3)])).all(), o
    assert m.h(7, 3, o[0]) == 3 * (6 + 4 + 2 + 0), m.h(7, 3, o[0])
