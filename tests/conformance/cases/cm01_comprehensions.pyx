# List, set and dict comprehensions and generator expressions, as Cython 3.3
# compiles them: loop variables do not leak, a comprehension's range() variable
# is a C integer (of the widest type of range()'s arguments, or the type of a
# declared variable of that name), a generator expression's is a Python object.
from cython.parallel import prange

cdef int N = 1000
SQUARES = [k * k for k in range(10)]
EVENS = {k for k in range(20) if k % 2 == 0}
cdef int j
WRAPPED = [j * j * j * j * j * j * j for j in range(N)][-1]   # int arithmetic: j is the cdef int
EXACT = [k * k * k * k * k * k * k for k in range(N)][-1]     # module level: k is an object


def doubled(double[:] x, double[:] out):
    cdef Py_ssize_t i
    for i in prange(x.shape[0], nogil=True):
        out[i] = 2 * x[i]
    return [out[i] for i in range(out.shape[0])]


def no_leak(int n):
    cdef int i = -1
    a = [i for i in range(n)]
    return i, a


def int_wrap(int n, long m):
    # k is an int for range(n) (wraps), a long for range(0, m)
    return [k * k * k * k * k * k * k for k in range(n)][-1], [k * k * k * k * k * k * k for k in range(0, m)][-1]


def genexpr_exact(int n):
    cdef int k
    # a generator expression's k is a Python int: no overflow
    return sum(k * k * k * k * k * k * k for k in range(n)), max(k * k * k * k for k in range(n))


def nested(int n):
    return [[i * j for j in range(i)] for i in range(n)], [(i, j) for i in range(n) for j in range(i) if (i + j) % 2]


def dicts(keys, values):
    return {k: v for k, v in zip(keys, values) if v is not None}, dict((k, len(k)) for k in keys)


calls = []

def seen(x):
    calls.append(x)
    return x


def short_circuit(double[:] x, double limit):
    cdef Py_ssize_t i
    calls.clear()
    found = any(seen(x[i]) > limit for i in range(x.shape[0]))
    n_any = len(calls)
    calls.clear()
    every = all(seen(x[i]) <= limit for i in range(x.shape[0]))
    return found, n_any, every, len(calls)


def nested_any(int n, int target):
    return any(i * j == target for i in range(n) for j in range(n)), all(i + j < 2 * n for i in range(n) for j in range(n))


def reductions(double[:] x):
    cdef Py_ssize_t i
    return (sum(x[i] for i in range(x.shape[0])), min(x[i] for i in range(x.shape[0])),
            sorted(x[i] for i in range(x.shape[0]))[:3], tuple(int(x[i]) for i in range(3)),
            ",".join(str(i) for i in range(4)), sum((i for i in range(5)), 100))


def sets(words):
    return {w[0] for w in words if w}, sorted({len(w) for w in words if w}), {len(words), 1, 1.0, "a"}


def conditional(int n, bint flag):
    return [i for i in range(n)] if flag else {i: i for i in range(n)}


def view_items(double[:] a, int[:] b):
    # iterating a typed memoryview gives Python numbers, as Cython's memoryview does
    return [type(x).__name__ for x in a], [x for x in a[::-1]], [y * 2 for y in b]
