# try/except as real code writes it: exception classes and tuples, 'as',
# a bare except, else and finally together, raise and a bare re-raise
# inside handlers, in def and cdef functions and module-level code; a
# prange inside a try body stays an ordinary region (an OpenCL kernel).
# expect-opencl: yes
import sys
from cython.parallel import prange

log = []

try:
    import no_such_module_cyocl
    HAVE = True
except ImportError as err:
    HAVE = False
    log.append(type(err).__name__)

def safe_div(x, y):
    try:
        r = x / y
    except ZeroDivisionError:
        r = None
    except (TypeError, ValueError) as e:
        r = type(e).__name__
    else:
        log.append(('ok', x, y))
    finally:
        log.append('fin')
    return r

def bare(f, x):
    try:
        return f(x)
    except:
        return 'caught ' + sys.exc_info()[0].__name__

def reraise(x):
    try:
        return [1, 2, 3][x]
    except IndexError as e:
        log.append(str(e))
        raise

def convert(x):
    try:
        return int(x)
    except ValueError as e:
        raise TypeError('bad %r' % (x,))

def context(x):
    try:
        try:
            1 / x
        except ZeroDivisionError:
            raise KeyError(x)
    except KeyError as e:
        return type(e.__context__).__name__

def unmatched(x):
    try:
        return {}[x]
    except (ValueError, TypeError):
        return 'no'

cdef int checked(int x) except -1:
    if x < 0:
        raise ValueError('negative')
    return x * 2

def cdef_caller(int x):
    cdef int r
    try:
        r = checked(x)
    except ValueError as e:
        r = -1
        log.append(e.args[0])
    return r

cdef double careful(double[:] a, Py_ssize_t k) except? -1:
    try:
        return a[k]
    except IndexError:
        return 0.0

def call_careful(double[:] a, Py_ssize_t k):
    return careful(a, k)

def loop(items):
    out = []
    for x in items:
        try:
            if x == 0:
                continue
            if x == 99:
                break
            out.append(10 // x)
        except ZeroDivisionError:
            out.append('z')
        except TypeError:
            out.append('t')
            continue
        else:
            out.append('e')
    return out

def handler_exits(items):
    cdef int n = 0
    for x in items:
        try:
            raise ValueError(x)
        except ValueError as e:
            if e.args[0] == 2:
                break
            n += 1
    return n, sys.exc_info()[0] is None

def nested_handlers(x):
    try:
        raise ValueError('outer')
    except ValueError:
        try:
            raise KeyError('inner')
        except KeyError:
            pass
        inner_done = sys.exc_info()[0].__name__
        return inner_done

def as_unbound(x):
    e = 1
    try:
        1 / x
    except ZeroDivisionError as e:
        pass
    return e

def region(double[:] a):
    cdef double s = 0
    cdef Py_ssize_t i
    try:
        for i in prange(a.shape[0], nogil=True):
            s += a[i]
        if s > 100:
            raise OverflowError('big')
    except OverflowError:
        s = -1
    return s

def no_active():
    raise

def chained(x):
    try:
        return int(x)
    except ValueError as e:
        raise KeyError(x) from e

def quiet(x):
    try:
        return int(x)
    except ValueError:
        raise KeyError(x) from None

def finally_wins(o):
    try:
        return o
    finally:
        return 'finally'
