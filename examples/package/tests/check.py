"""Imports the installed cyocl_example and checks it against numpy, natively
and (CYOCL_FORCE=opencl, when an OpenCL device is there) on OpenCL.

    python tests/check.py
"""
import os
import subprocess
import sys

import numpy as np


def check():
    import cyocl
    import cyocl_example as ex
    from cyocl_example import kernels

    rng = np.random.default_rng(19)
    n = 100_003
    x, y = rng.random(n), rng.random(n)
    out = np.empty(n)
    ex.saxpy(2.5, x, y, out)
    assert np.array_equal(out, 2.5 * x + y), "saxpy"
    d = ex.dot(x, y)
    assert abs(d - float(np.dot(x, y))) <= 1e-9 * abs(d), ("dot", d, np.dot(x, y))
    m = rng.random((257, 129))
    rs = np.empty(257)
    ex.row_sums(m, rs)
    assert np.allclose(rs, m.sum(axis=1), rtol=1e-12), "row_sums"
    z = x.copy()
    ex.scale(z, 3.0)
    assert np.array_equal(z, x * 3.0), "scale"
    s = cyocl.stats()
    where = os.path.dirname(kernels.__file__)
    print(f"cyocl_example OK ({os.environ.get('CYOCL_FORCE', 'native')}): modules in {where}, "
          f"runtime {os.path.dirname(cyocl.__file__)}, launches {s['launches']}, fallbacks {s['fallbacks']}")
    return s


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--opencl":
        s = check()
        assert s["launches"] > 0 and s["fallbacks"] == 0, s
        sys.exit(0)
    check()
    import cyocl

    if cyocl.devices():
        env = dict(os.environ, CYOCL_FORCE="opencl")
        sys.exit(subprocess.call([sys.executable, os.path.abspath(__file__), "--opencl"], env=env))
    print("no OpenCL device: the OpenCL run is left out")
