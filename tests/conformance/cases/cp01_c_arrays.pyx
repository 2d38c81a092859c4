# expect-opencl: yes
# Fixed-size C arrays as locals: both declaration forms, list literals,
# nested arrays, sizeof, indexing. In a prange an array assigned as a whole
# in the body is private to each iteration (Cython makes it lastprivate) and
# can become a private array of the kernel; one the iterations only read is
# shared: a kernel takes it by value when the body only reads it.
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange

def basics():
    cdef double[3] v = [1.5, 2.5, 3.5]
    cdef int m[2][3]
    cdef int[2][3] n = [[1, 2, 3], [4, 5, 6]]
    cdef unsigned long long[4] big
    cdef int i, j
    for i in range(2):
        for j in range(3):
            m[i][j] = 10 * i + j
    for i in range(4):
        big[i] = 1
        big[i] <<= 40 + i
    v = [v[2], v[1], v[0]]          # the right side is evaluated first: a swap
    cdef double t = 0
    for i in range(3):
        t += v[i] * (i + 1)
    return (t, m[1][2] + n[1][0], <long long> (big[3] >> 40), sizeof(v), sizeof(m), sizeof(big))

def private_array(double[:] a, double[:] out):
    cdef double[3] w
    cdef Py_ssize_t i
    cdef int k
    cdef double acc
    for i in prange(a.shape[0], nogil=True):
        w = [a[i], a[i] * a[i], 1.0]
        acc = 0
        for k in range(3):
            acc = acc + w[k] * (k + 1)
        out[i] = acc

def smooth3x3(double[:, ::1] img, double[:, ::1] out):
    # the weights are read by every iteration: a shared array, passed to a kernel by value
    cdef double[3][3] wts = [[1, 2, 1], [2, 4, 2], [1, 2, 1]]
    cdef Py_ssize_t i, j
    cdef int di, dj
    cdef double s
    for i in prange(1, img.shape[0] - 1, nogil=True):
        for j in range(1, img.shape[1] - 1):
            s = 0
            for di in range(3):
                for dj in range(3):
                    s = s + wts[di][dj] * img[i + di - 1, j + dj - 1]
            out[i, j] = s / 16

def window_max(double[:] a, double[:] out):
    # a private window per iteration, filled and then scanned
    cdef double[5] win
    cdef Py_ssize_t i
    cdef int k
    cdef double mx
    for i in prange(2, a.shape[0] - 2, nogil=True):
        win = [a[i - 2], a[i - 1], a[i], a[i + 1], a[i + 2]]
        mx = win[0]
        for k in range(1, 5):
            if win[k] > mx:
                mx = win[k]
        out[i] = mx

cdef int[4] table = [3, 1, 4, 1]

def as_lists():
    # C arrays convert to Python lists (nested for int[2][2])
    cdef double[3] v = [1, 2, 3]
    v[:] = [v[2], 5, v[0]]
    cdef int[2][2] m = [[1, 2], [3, 4]]
    table[3] = 9
    return v, m, table
