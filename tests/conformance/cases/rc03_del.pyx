# del of locals, module globals, items, slices and attributes, with the
# errors Cython's code raises for what is not there.
G = 5
def f(d, int n):
    x = 1
    del x
    y = [1, 2, 3, 4, 5]
    del y[0], d['a']
    del y[0:2]
    return y, d
def g(flag):
    x = [1.5]
    if flag:
        del x
    return x
def h():
    global G
    del G
    try:
        return G
    except NameError:
        return 'gone'
def k(o):
    del o.attr
    return o
def m():
    global G
    del G
def n(d):
    for key in list(d):
        if key.startswith('_'):
            del d[key]
    return d
