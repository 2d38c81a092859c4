# expect-error: 5:41 a lambda that uses the enclosing function's variable 'scale'
# cyocl-limit: closures (Cython makes the lambda a closure over 'scale')
def scaled(list xs, double scale):
    # the lambda reads a local of scaled(): a closure
    return sorted(xs, key=lambda v: v * scale)
