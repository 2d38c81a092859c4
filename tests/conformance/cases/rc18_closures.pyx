"""Closures as real modules' Python-level code writes them: a sort key and
a callback reading the enclosing function's arguments, nested defs returned
as functions (a decorator-style wrapper, a formatter, three levels deep),
the lambda default that captures a loop variable (k=k), a default computed
from a global, closures over C-typed arguments and a memoryview, and a
method's lambda over self."""
import math

OFFSET = 0.5

def sort_by_distance(list pts, double cx, double cy):
    return sorted(pts, key=lambda p: math.hypot(p[0] - cx, p[1] - cy))

def adders(int n):
    return [lambda x, k=k: x + k for k in range(n)]

def make_formatter(prefix, int width):
    sep = ": "
    def fmt(item, upper=False):
        """Formats one item."""
        s = prefix + sep + str(item).rjust(width)
        return s.upper() if upper else s
    return fmt

def logged(f, list log):
    def wrapper(*args, **kw):
        log.append((f.__name__, args))
        return f(*args, **kw)
    return wrapper

def curry3(a):
    def take_b(b):
        def take_c(c):
            return (a, b, c)
        return take_c
    return take_b

def shifted(y, double scale=2.0):
    return (lambda x, b=OFFSET * scale: x + b)(y)

def sample(double[:] v, long stride):
    pick = lambda i: v[i * stride]
    return [pick(i) for i in range(v.shape[0] // stride)]

def pipeline(int n):
    cdef int base = n * 10
    def step(x):
        return x + base
    return list(map(step, range(3)))

def flatten(tree):
    out = []
    def visit(node, int depth=0):
        out.append((node[0], depth))
        for child in node[1]:
            visit(child, depth + 1)
    visit(tree)
    return out

def by_mode(xs, int mode):
    if mode == 1:
        weight = 2.0
    else:
        weight = -1.0
    total = 0
    for x in xs:
        total += x
    return [(lambda v: v * weight + total)(x) for x in xs]

cdef class Scaler:
    cdef public double factor
    def __init__(self, double factor):
        self.factor = factor
    def apply_all(self, xs):
        return list(map(lambda x: x * self.factor, xs))
