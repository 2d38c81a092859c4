# expect-error: 6:9 nonlocal statements are not supported
# cyocl-limit: nonlocal (a closure that assigns the enclosing function's variable)
def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    return inc
