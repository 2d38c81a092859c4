# expect-error: 4:17 generator expressions are not supported by cyocl here
# cyocl-limit: a generator another function consumes lazily (next, zip, ...) is not supported
def first_positive(a):
    return next(x for x in a if x > 0)
