"""python -m cyocl ARGS: the cyocl command; --cmake-dir prints the directory
for find_package(cyocl) (-Dcyocl_DIR=...)."""
import os
import sys

from . import _tool


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv == ["--cmake-dir"]:
            print(_tool.cmake_dir())
            return 0
        exe = _tool.executable()
    except _tool.CyoclNotFound as e:
        print(f"cyocl: error: {e}", file=sys.stderr)
        return 2
    os.environ.setdefault("CYOCL_PYTHON", sys.executable)
    os.execv(exe, [exe] + argv)


if __name__ == "__main__":
    sys.exit(main())
