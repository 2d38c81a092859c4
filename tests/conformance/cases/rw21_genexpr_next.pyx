# next() of a generator expression: the first value, computed alone (the
# elements after it are never computed), StopIteration or the default.
log = []
def first_big(xs, double lim):
    return next(x for x in xs if x > lim)
def first_or(xs):
    return next((1 / x for x in xs if x), None)
def pair(n):
    return next(((i, j) for i in range(n) for j in range(n) if i * j == 6), 'none')
def lazy(xs):
    return next(log.append(x) or x for x in xs)
def count_calls(xs):
    log.clear()
    v = lazy(xs)
    return v, list(log)
