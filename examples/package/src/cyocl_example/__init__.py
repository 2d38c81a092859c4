"""An example package whose extension modules cyocl builds (setup.py)."""
from .kernels import dot, row_sums, saxpy
from .plain import scale

__all__ = ["dot", "row_sums", "saxpy", "scale"]
