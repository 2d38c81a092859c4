# Lambdas as real code writes them (sort keys, map, small callbacks):
# arguments, module globals and constants as defaults; named as Cython
# names them (lambda, lambda1, ... in source order).
SCALE = 3
key_last = lambda t: t[-1]

def by_second(list xs):
    xs.sort(key=lambda t: t[1], reverse=True)
    return xs

def apply(f, x):
    return f(x)

def transform(list xs):
    return list(map(lambda v: v[0] * SCALE + 1, xs)), sorted(xs, key=key_last)

def pick(d):
    return sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))

def compose():
    f = lambda a, b=None, *rest, **kw: (a, b, rest, sorted(kw))
    return f(1), f(1, 2, 3, z=4), apply(lambda q: [q * i for i in range(3)], 2), (lambda: 7)()

def name():
    g = lambda: 0
    return g.__name__
