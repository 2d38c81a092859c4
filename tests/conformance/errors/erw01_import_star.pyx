# expect-error: 4:19 'import *' is not supported
# cyocl-limit
# A star import of a Python module binds names only known at run time.
from numpy import *

def f(x):
    return x
