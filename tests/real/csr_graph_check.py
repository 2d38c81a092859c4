import numpy as np


def csr(dense):
    indptr = [0]; indices = []; data = []
    for row in dense:
        nz = np.nonzero(row)[0]
        indices.extend(nz); data.extend(row[nz]); indptr.append(len(indices))
    return (np.array(data, np.float64), np.array(indices, np.int32), np.array(indptr, np.int32))


def check(mod):
    rng = np.random.default_rng(3)
    A = rng.normal(size=(700, 500)) * (rng.random((700, 500)) < 0.02)
    A[5] = 0
    data, ind, ptr = csr(A)
    x = rng.normal(size=500)
    y = np.empty(700)
    mod.spmv(data, ind, ptr, x, y)
    assert np.allclose(y, A @ x, rtol=1e-12, atol=1e-12)
    ma = np.empty(700); nnz = np.empty(700, np.int32)
    mod.row_max_abs(data, ptr, ma, nnz)
    assert (ma == np.abs(A).max(1)).all() and (nnz == (A != 0).sum(1)).all()
    n = 400
    adj = (rng.random((n, n)) < 0.01).astype(np.float64)   # adj[i, j]: edge j -> i
    adj[:, 7] = 0
    outdeg = adj.sum(0).astype(np.int32)
    _, ind2, ptr2 = csr(adj)
    r = mod.pagerank(ind2, ptr2, outdeg, 30)
    rr = np.full(n, 1.0 / n)
    M = np.where(outdeg > 0, adj / np.maximum(outdeg, 1), 0.0)
    for _ in range(30):
        rr = 0.15 / n + 0.85 * (M @ rr + rr[outdeg == 0].sum() / n)
    assert np.allclose(r, rr, rtol=1e-10), np.abs(r - rr).max()
    return [y, ma, nnz, r]
