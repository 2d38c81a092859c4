# The extension modules come from cyocl.setuptools: every .pyx is translated
# by `cyocl compile` and compiled by setuptools with OpenMP.
from setuptools import setup

from cyocl.setuptools import cyocl_extensions

setup(
    ext_modules=cyocl_extensions("src/cyocl_example/kernels.pyx", root="src")
    + cyocl_extensions("src/cyocl_example/plain.pyx", root="src", no_opencl=True),
)
