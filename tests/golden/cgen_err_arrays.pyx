# Element-wise expressions on memoryview slices: what is rejected, and where.
def more_dims(double[:] out, double[:, :] m):
    out[:] = m[:, :] * 2.0

def objects(double[:] out, double[:] x, k):
    out[:] = x[:] * k

def const_target(const double[:] out, double[:] x):
    out[:] = x[:]
