# C structs as kernels use them: cdef and ctypedef structs, nested structs
# and array fields, locals, module variables, C arrays of structs and
# malloc'd ones through pointers (pp.x reads through the pointer, as
# Cython writes it), Cython's constructor (positional and keyword) and
# dict-literal initialisers, cdef functions taking and returning structs,
# a prange over an array of structs (it stays native: "a C struct"), and
# the conversions: a struct is a dict to Python and a mapping becomes one
# (Cython's TypeError and ValueError otherwise).
# cython: boundscheck=False, wraparound=False
from cython.parallel import prange
from libc.stdlib cimport malloc, free
from libc.math cimport sqrt

cdef struct Vec:
    double x, y

ctypedef struct Body:
    Vec pos
    Vec vel
    double mass
    int[3] tags

cdef packed struct Packed:
    char c
    int i

cdef Vec origin


cdef inline double norm(Vec v) noexcept nogil:
    return sqrt(v.x * v.x + v.y * v.y)


cdef Vec add(Vec a, Vec b, double s) noexcept nogil:
    a.x += s * b.x
    a.y = a.y + s * b.y
    return a


def simulate(double[:, ::1] init, double dt, int steps):
    cdef Py_ssize_t n = init.shape[0], i
    cdef Body *bs = <Body *>malloc(n * sizeof(Body))
    cdef Body *b
    cdef int k
    cdef double energy = 0
    for i in range(n):
        bs[i].pos = Vec(init[i, 0], init[i, 1])
        bs[i].vel = Vec(y=init[i, 3], x=init[i, 2])
        bs[i].mass = 1.0 + i
        bs[i].tags[0] = <int>i
    for k in range(steps):
        for i in prange(n, nogil=True):
            bs[i].pos = add(bs[i].pos, bs[i].vel, dt)
    for i in prange(n, nogil=True):
        energy += 0.5 * bs[i].mass * norm(bs[i].vel) * norm(bs[i].vel)
    b = &bs[n - 1]
    b.mass *= 2
    out = [(bs[i].pos.x, bs[i].pos.y) for i in range(n)]
    last = (b.pos, b.mass, b.tags[0])
    free(bs)
    return out, energy, last


def locals_(double u):
    global origin
    cdef Vec p = Vec(u, 2.0)
    cdef Vec q = {'y': 5.0, 'x': -u}
    cdef Vec arr[3]
    cdef double *px = &p.x
    arr[0] = p
    arr[1] = q
    arr[2] = arr[0]
    arr[2].y = 7
    px[0] += 1
    origin.x = u
    origin = add(origin, q, 2)
    return p, arr, origin, sizeof(Vec), sizeof(Packed)


def from_python(Vec v, dict d):
    cdef Vec w = d
    return norm(v), add(v, w, 1.0)
