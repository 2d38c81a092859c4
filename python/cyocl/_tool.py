"""Finding and running the cyocl executable from Python."""
import os
import shutil
import subprocess
import sys
import sysconfig

from . import _config


class CyoclNotFound(RuntimeError):
    pass


def _prefixes():
    """The directories above this package, nearest first: an installation
    prefix (PREFIX/lib/pythonX.Y/site-packages/cyocl) is among them."""
    d = os.path.dirname(os.path.abspath(__file__))
    out = []
    for _ in range(5):
        d = os.path.dirname(d)
        out.append(d)
    return out


def executable():
    """The cyocl command: $CYOCL, the build tree's, the scripts directory of
    this Python (where ``pip install`` puts it), the user scripts directory,
    PREFIX/bin of the prefix this package is installed in, then PATH."""
    env = os.environ.get("CYOCL")
    if env:
        return env
    if _config.BUILD_TREE_EXE and os.path.exists(_config.BUILD_TREE_EXE):
        return _config.BUILD_TREE_EXE
    dirs = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    try:
        dirs.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:
        pass
    dirs += [os.path.join(p, "bin") for p in _prefixes()]
    for d in dirs:
        p = os.path.join(d or "", "cyocl")
        if d and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    p = shutil.which("cyocl")
    if p:
        return p
    raise CyoclNotFound(
        "the cyocl command is not installed for this Python "
        f"({sys.executable}); `pip install` cyocl, or set CYOCL to its path")


def flags(no_opencl=False, no_opencl_gpu=False, fp_contract=False, include_dirs=()):
    """The cyocl compile/build options for these choices."""
    f = []
    if no_opencl:
        f.append("--no-opencl")
    if no_opencl_gpu:
        f.append("--no-opencl-gpu")
    if fp_contract:
        f.append("--fp-contract")
    for d in include_dirs:
        f += ["-I", os.fspath(d)]
    return f


def run(args, **kw):
    """Runs ``cyocl ARGS``; the CompletedProcess (text, output captured)."""
    env = dict(os.environ)
    env.setdefault("CYOCL_PYTHON", sys.executable)
    return subprocess.run([executable()] + list(args), capture_output=True, text=True, env=env, **kw)


def cmake_dir():
    """The directory holding cyoclConfig.cmake for this installation."""
    here = os.path.dirname(os.path.abspath(__file__))
    if _config.BUILD_TREE_CMAKE_DIR:
        return os.path.normpath(os.path.join(here, _config.BUILD_TREE_CMAKE_DIR))
    # installed: the wheel's data (or the CMake install prefix) is
    # PREFIX/lib/cmake/cyocl, with the command in PREFIX/bin
    cands = [os.path.join(p, "lib", "cmake", "cyocl") for p in _prefixes()]
    cands.append(os.path.join(sys.prefix, "lib", "cmake", "cyocl"))
    try:
        exe = executable()
        cands.append(os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(exe))), "lib", "cmake", "cyocl"))
    except CyoclNotFound:
        pass
    for c in cands:
        if os.path.exists(os.path.join(c, "cyoclConfig.cmake")):
            return c
    raise CyoclNotFound("cyoclConfig.cmake not found (looked in: %s)" % ", ".join(cands))
