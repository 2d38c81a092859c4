# C pointers and the C library: &x, &view[i], p[i], pointer arithmetic and
# comparisons, <T *> casts of malloc, NULL, sizeof, pointers through cdef
# functions; malloc'd per-thread scratch inside parallel(); OpenMP calls and
# locks; use_threads_if. Regions with pointers stay native.
# cython: boundscheck=False, wraparound=False
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset
from libc.stdio cimport printf
cimport libc.stdlib
cimport openmp
from openmp cimport omp_lock_t, omp_init_lock, omp_set_lock, omp_unset_lock, omp_destroy_lock
from cython.parallel import prange, parallel, threadid

cdef double walk_sum(const double *p, Py_ssize_t n) noexcept nogil:
    cdef double s = 0
    cdef const double *end = p + n
    while p < end:
        s += p[0]
        p += 1
    return s

cdef double *largest(double *p, Py_ssize_t n) noexcept nogil:
    cdef double *best = p
    cdef Py_ssize_t k
    for k in range(1, n):
        if p[k] > best[0]:
            best = p + k
    return best

def copy_and_sum(double[:] a):
    cdef Py_ssize_t n = a.shape[0]
    cdef double *buf = <double *> malloc(n * sizeof(double))
    if buf == NULL:
        raise MemoryError()
    memcpy(buf, &a[0], n * sizeof(double))
    cdef double s = walk_sum(buf, n)
    cdef double *top = largest(buf, n)
    cdef Py_ssize_t where = top - buf
    cdef double x = 0
    cdef double *px = &x
    px[0] = 7.5
    libc.stdlib.free(buf)
    return s, where, x

def grow(int n):
    cdef int *v = <int *> calloc(2, sizeof(int))
    cdef int k
    v = <int *> realloc(v, n * sizeof(int))
    memset(v, 0, n * sizeof(int))
    for k in range(n):
        v[k] = k * k
    cdef long total = 0
    cdef int *p = v
    while p != v + n:
        total += p[0]
        p += 1
    free(v)
    return total

def row_scale(double[:, ::1] m, double f):
    cdef Py_ssize_t i, j
    cdef double *row
    for i in prange(m.shape[0], nogil=True):
        row = &m[i, 0]
        for j in range(m.shape[1]):
            row[j] = row[j] * f

def scratch_sums(double[:, ::1] a, double[:] out):
    # one malloc'd buffer per thread, used by every iteration it runs
    cdef Py_ssize_t i, j, m = a.shape[1]
    cdef double *tmp
    with nogil, parallel():
        tmp = <double *> malloc(m * sizeof(double))
        for i in prange(a.shape[0]):
            for j in range(m):
                tmp[j] = a[i, j] * a[i, j]
            out[i] = walk_sum(tmp, m)
        free(tmp)

def locked_count(int n, int nthreads):
    cdef omp_lock_t lock
    cdef int i
    cdef long count = 0
    cdef long *pc = &count      # the iterations share count through the pointer
    omp_init_lock(&lock)
    for i in prange(n, nogil=True, num_threads=nthreads):
        omp_set_lock(&lock)
        pc[0] += i % 3
        omp_unset_lock(&lock)
    omp_destroy_lock(&lock)
    # the qualified spelling of Cython's docs, through `cimport openmp`
    cdef openmp.omp_lock_t lock2
    openmp.omp_init_lock(&lock2)
    openmp.omp_set_lock(&lock2)
    openmp.omp_unset_lock(&lock2)
    openmp.omp_destroy_lock(&lock2)
    return count, openmp.omp_get_max_threads() >= 1

def thread_ids(int n, int[:] seen):
    cdef int i
    with nogil, parallel(num_threads=3):
        seen[threadid()] = openmp.omp_get_num_threads()
    return openmp.omp_get_thread_num()

def gated(double[:] a, int gate):
    cdef Py_ssize_t i
    cdef double s = 0
    for i in prange(a.shape[0], nogil=True, use_threads_if=gate > 100):
        s += a[i]
    return s

cpdef double par_sum(double[:] a) nogil:
    cdef Py_ssize_t i
    cdef double s = 0
    for i in prange(a.shape[0]):
        s += a[i]
    return s

def hello(int k):
    printf("cp02 says %d %s\n", k, "hello")
    return k
