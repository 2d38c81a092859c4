# cython: language_level=3
# cython: boundscheck=False, wraparound=False, cdivision=True
# expect-opencl: yes
"""Activation functions the way older extension code writes them: the C
math functions declared from math.h by hand, a cpdef enum selecting the
variant, an optional import guarded by try/except at module level, and
argument checking that turns Python errors into the module's own."""
from cython.parallel import prange

try:
    from scipy.special import erf as _scipy_erf   # optional: only for info()
    HAVE_SCIPY = True
except ImportError:
    _scipy_erf = None
    HAVE_SCIPY = False

cdef extern from "math.h" nogil:
    double erf(double x)
    double tanh(double x)
    double exp(double x)
    double sqrt(double x)
    double M_PI

cpdef enum Act:
    GELU_EXACT = 0
    GELU_TANH = 1
    SILU = 2


cdef inline double act1(double x, Act kind) noexcept nogil:
    if kind == GELU_EXACT:
        return 0.5 * x * (1.0 + erf(x / sqrt(2.0)))
    elif kind == GELU_TANH:
        return 0.5 * x * (1.0 + tanh(sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)))
    return x / (1.0 + exp(-x))


def activate(double[:, ::1] x, kind=GELU_EXACT):
    """Applies the activation in place; kind is an Act or its name."""
    cdef Act k
    try:
        k = Act[kind] if isinstance(kind, str) else Act(kind)
    except (KeyError, ValueError) as e:
        raise ValueError("unknown activation %r" % (kind,)) from e
    cdef Py_ssize_t i, j
    for i in prange(x.shape[0], nogil=True):
        for j in range(x.shape[1]):
            x[i, j] = act1(x[i, j], k)
    return Act(k)


def safe_mean(values):
    """The mean of values, None for a non-numeric sequence (NaN for an
    empty one: cdivision is on, so the handler never sees a ZeroDivisionError)."""
    cdef double s = 0
    cdef Py_ssize_t n = 0
    try:
        for v in values:
            s += v
            n += 1
        return s / n
    except ZeroDivisionError:
        return None
    except TypeError:
        return None
    finally:
        pass


def info():
    return {"scipy": HAVE_SCIPY, "kinds": [a.name for a in Act]}
