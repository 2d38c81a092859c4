# expect-error: 7:5 'except' clauses are not supported by cyocl
# cyocl-limit
# try/except (try/finally is supported).
def f(x):
    try:
        return 1 / x
    except ZeroDivisionError:
        return 0
