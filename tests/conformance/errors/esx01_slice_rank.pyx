# expect-error: 5:18 a memoryview of 2 dimensions in an expression of 1
# An operand of an element-wise slice expression may have fewer dimensions
# than the target (numpy lines up the trailing axes), not more.
def f(double[:] out, double[:, :] m):
    out[:] = 2 * m[:, :]
