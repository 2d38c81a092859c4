# expect-error: 5:19 not a constant is not supported by cyocl
# cyocl-limit: a non-constant default of a memoryview argument
import numpy as np
ZEROS = np.zeros(3)
def f(double[:] a=ZEROS):
    return a[0]
