# expect-error: 4:18 Python object cannot be passed as a varargs parameter
from libc.stdio cimport printf
def f(x):
    printf("%s", x)
    return 1
