# expect-opencl: yes
"""The Python-level code around a kernel as real modules write it: a config
parsed with a regex and assignment expressions, rows split with starred
assignment, per-column transforms made as closures (a lambda default k=k, a
nested def over the arguments), a nonlocal counter in a callback, and a
@classmethod constructor of a cdef class whose method runs a prange."""
# cython: boundscheck=False, wraparound=False
import re
import numpy as np
from cython.parallel import prange

ITEM = re.compile(r"\s*(\w+)\s*=\s*([-\d.]+)\s*$")

def parse_config(lines):
    cfg = {}
    for line in lines:
        if (m := ITEM.match(line)) is not None:
            cfg[m.group(1)] = float(m.group(2))
    return cfg

def split_rows(rows):
    names, cols = [], []
    for name, *vals in rows:
        names.append(name)
        cols.append([float(v) for v in vals])
    return names, np.array(cols)

def column_transforms(int ncols, double shift):
    fs = [lambda x, k=k: x * (k + 1) for k in range(ncols)]
    def shifted(x):
        return x + shift
    return fs, shifted

cdef class Grid:
    cdef double[:, ::1] data
    cdef public double gain

    def __init__(self, double[:, ::1] data, double gain=1.0):
        self.data = data
        self.gain = gain

    @classmethod
    def from_rows(cls, rows, gain=1.0):
        names, arr = split_rows(rows)
        return cls(np.ascontiguousarray(arr), gain)

    def scaled_sums(self):
        cdef Py_ssize_t i, j, n = self.data.shape[0], m = self.data.shape[1]
        out = np.zeros(n)
        cdef double[::1] o = out
        cdef double g = self.gain
        for i in prange(n, nogil=True):
            for j in range(m):
                o[i] += self.data[i, j] * g
        return out

def run(lines, rows):
    cfg = parse_config(lines)
    g = Grid.from_rows(rows, cfg.get("gain", 1.0))
    sums = g.scaled_sums()
    fs, shifted = column_transforms(3, cfg.get("shift", 0.0))
    calls = 0
    def count(v):
        nonlocal calls
        calls += 1
        return shifted(v)
    moved = [count(fs[i % 3](s)) for i, s in enumerate(sums)]
    return sums, moved, calls, sorted(cfg.items())
