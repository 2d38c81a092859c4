"""nonlocal as real code uses it: a counter, accumulators a callback
updates, a parameter rebound by a helper, a flag a visitor sets; the
enclosing function and other nested functions see the new values."""

def make_counter(int start=0):
    n = start
    def inc(step=1):
        nonlocal n
        n += step
        return n
    def peek():
        return n
    return inc, peek

def accumulate(xs):
    total = 0
    count = 0
    def add(v):
        nonlocal total, count
        total += v
        count += 1
    for x in xs:
        add(x)
    return total, count

def doubled_twice(x):
    def bump():
        nonlocal x
        x = x * 2
    bump()
    bump()
    return x

def find_first(tree, target):
    found = None
    def visit(node, path):
        nonlocal found
        if found is not None:
            return
        if node[0] == target:
            found = path + [node[0]]
            return
        for child in node[1]:
            visit(child, path + [node[0]])
    visit(tree, [])
    return found
