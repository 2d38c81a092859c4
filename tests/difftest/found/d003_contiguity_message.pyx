# difftest finding: a non-contiguous argument for a ::1 view: message differs
def f(double[::1] a):
    return a.shape[0]
