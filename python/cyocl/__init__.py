"""cyocl: Cython (.pyx) to CPython extension modules with OpenMP and OpenCL.

This package is the process-wide runtime that modules built by cyocl import
(``import cyocl``; the extension ``cyocl._runtime``, re-exported here with
its capsule ``_api``), plus the build integrations:

- ``cyocl.setuptools.cyocl_extensions("pkg/*.pyx")``: setuptools Extensions
- ``%load_ext cyocl`` then ``%%cyocl [FLAGS]``: the IPython/Jupyter cell magic
- ``python -m cyocl ...``: the ``cyocl`` command (``--cmake-dir``: where
  ``find_package(cyocl)`` finds its configuration)
"""
from . import _runtime
from ._runtime import *  # noqa: F401,F403  devices, stats, resident, pin_host, ...
from ._runtime import _api  # noqa: F401  the capsule generated modules use
from ._config import VERSION as __version__

__all__ = [n for n in dir(_runtime) if not n.startswith("_")]


def load_ipython_extension(ipython):
    """``%load_ext cyocl``: registers the ``%%cyocl`` cell magic."""
    from .magic import CyoclMagics

    ipython.register_magics(CyoclMagics)
