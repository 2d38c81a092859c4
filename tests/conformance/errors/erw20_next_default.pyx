# expect-error: 6:39 a default of next() of a generator expression that is not a constant is not supported by cyocl
# cyocl-limit
# next(genexpr, default) with a computed default (cyocl would have to order
# its evaluation after the generator's first iterable).
def f(xs, d):
    return next((x for x in xs if x), d)
