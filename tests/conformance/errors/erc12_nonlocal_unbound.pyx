# expect-error: 5:18 no binding for nonlocal 'total' found
# Cython: the same message
def f():
    def g():
        nonlocal total
        total = 1
    return g
