# cyocl-extension
# expect-opencl: yes
# Element-wise slice expressions whose operands share memory with the
# target give numpy's results (operands read as if copied first).

def shift(double[:] a):
    a[1:] = a[:-1] + 1.0

def mirror(double[::1] a):
    a[::-1] = a[:] * 2.0

def transpose(double[:, :] x):
    x[:, :] = x[:, :].T

def smear(int[:, ::1] x):
    x[1:, :] = x[:-1, :] + x[1:, :]

def accumulate(double[:, :] x):
    x[:, 1:] += x[:, :-1]

def scale(double[:] a):
    a[:] = a[:] * 3.0                        # the same view: read in place
