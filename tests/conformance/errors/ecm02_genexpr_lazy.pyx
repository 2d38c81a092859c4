# expect-error: 4:24 generator expressions are not supported by cyocl here
# cyocl-limit: a generator another function consumes lazily (zip, enumerate, ...) is not supported
def pairs(a):
    return list(zip(a, (x for x in a if x > 0)))
