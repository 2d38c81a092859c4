# expect-error: 8:5 default 'except:' must be last
# A bare except before another handler (Python's and Cython's error).
def f(x):
    try:
        y = 1 / x
    except:
        y = 0
    except ZeroDivisionError:
        y = 2
    return y
