# difftest finding: float // by zero raises with another message than Cython's
def f(double a, double b):
    return a // b
