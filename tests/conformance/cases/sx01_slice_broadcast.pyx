# cyocl-extension
# expect-opencl: yes
# Element-wise slice expressions broadcast as numpy does: an operand of
# fewer dimensions lines up with the trailing axes, an extent-1 axis
# stretches (contiguous or not), the target's extents never stretch.
from libc.math cimport exp

def center(double[:, ::1] out, double[:, ::1] x, double[:, ::1] mean):
    out[:, :] = x[:, :] - mean[:, :]          # mean: (n, 1) or (1, m)

def outer(double[:, :] out, double[:, :] col, double[:, :] row):
    out[:, :] = col[:, :] * row[:, :]         # (n, 1) * (1, m)

def softish(float[:, :] out, float[:, :] x, float[:] b):
    out[:, :] = exp(x[:, :] + b[:])           # b: (m,) or (1,)

def total(double[:, :] a, double[:, :] b):
    return sum(a[:, :] * b[:, :])             # over the broadcast shape
