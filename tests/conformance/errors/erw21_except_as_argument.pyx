# expect-error: 8:33 an 'except ... as' target that is a function argument is not supported by cyocl
# cyocl-limit
# The 'as' name of an except clause is deleted when the handler ends;
# cyocl deletes locals and module globals, not arguments.
def f(e):
    try:
        1 / e
    except ZeroDivisionError as e:
        pass
    return 1
