# expect-opencl: yes
# Pairwise Euclidean distances between the rows of a float32 matrix,
# accumulated in double: np.ndarray buffer arguments with a ctypedef'd
# dtype, the result allocated with np.empty and filled in a prange.
# cython: boundscheck=False, wraparound=False, cdivision=True
cimport numpy as cnp
import numpy as np
from cython.parallel import prange
from libc.math cimport sqrt

cnp.import_array()

ctypedef cnp.float32_t DTYPE_t
ctypedef cnp.float64_t OUT_t


def pairwise_distances(cnp.ndarray[DTYPE_t, ndim=2, mode="c"] X not None):
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t i, j, k
    cdef OUT_t acc, diff
    cdef cnp.ndarray[OUT_t, ndim=2] D = np.zeros((n, n), dtype=np.float64)
    for i in prange(n, nogil=True, schedule="static"):
        for j in range(n):
            acc = 0.0
            for k in range(d):
                diff = <OUT_t>X[i, k] - <OUT_t>X[j, k]
                acc = acc + diff * diff
            D[i, j] = sqrt(acc)
    return D
