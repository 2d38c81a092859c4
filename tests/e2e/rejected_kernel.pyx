# A region whose OpenCL kernel OpenCL C cannot compile (260 nested
# additions) runs natively, with its reason, and the module builds; the
# other region still runs on OpenCL.
from cython.parallel import prange

def many_terms(double[:] a, double[:] out):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        out[i] = a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i]

def double_it(double[:] a):
    cdef Py_ssize_t i
    for i in prange(a.shape[0], nogil=True):
        a[i] = a[i] * 2
