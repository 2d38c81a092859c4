# cython: boundscheck=False, wraparound=False, cdivision=True
from cython.parallel import prange, parallel
from libc.math cimport sqrt
import numpy as np

ctypedef double real

cdef inline real inv_r3(real dx, real dy, real dz, real eps2) noexcept nogil:
    cdef real r2 = dx * dx + dy * dy + dz * dz + eps2
    return 1.0 / (r2 * sqrt(r2))

def accelerations(real[:, ::1] pos, real[::1] mass, real eps=1e-3):
    cdef Py_ssize_t n = pos.shape[0]
    acc_np = np.zeros((n, 3))
    cdef real[:, ::1] acc = acc_np
    cdef Py_ssize_t i, j
    cdef real ax, ay, az, dx, dy, dz, s
    cdef real eps2 = eps * eps
    with nogil, parallel():
        for i in prange(n, schedule='guided'):
            ax = 0; ay = 0; az = 0
            for j in range(n):
                if j == i:
                    continue
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                s = mass[j] * inv_r3(dx, dy, dz, eps2)
                ax = ax + s * dx
                ay = ay + s * dy
                az = az + s * dz
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az
    return acc_np

def kinetic(real[:, ::1] vel, real[::1] mass):
    cdef Py_ssize_t i
    cdef real e = 0
    for i in prange(vel.shape[0], nogil=True):
        e += 0.5 * mass[i] * (vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2)
    return e
