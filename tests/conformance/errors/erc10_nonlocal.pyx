# expect-error: 5:5 nonlocal 'k' bound by a for loop's target is not supported by cyocl
# cyocl-limit: a nonlocal variable that a for loop assigns (cyocl makes such variables cells, which a loop's
# target cannot be)
def last_seen(xs):
    for k in xs:
        pass
    def reset():
        nonlocal k
        k = None
    reset()
    return k
