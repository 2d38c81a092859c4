# expect-error: 6:18 undeclared name not builtin: double
cimport cython
def twice(cython.floating x):
    return x * 2
def use(double x):
    return twice[double](x)
