"""setuptools integration: .pyx files (glob patterns allowed, as with
``cythonize``) to ``setuptools.Extension`` objects built from the C that
``cyocl compile`` writes.

    # setup.py
    from setuptools import setup
    from cyocl.setuptools import cyocl_extensions

    setup(ext_modules=cyocl_extensions("src/mypkg/*.pyx", root="src"))

The translation happens when ``cyocl_extensions`` is called (it takes
milliseconds); setuptools then compiles the C with OpenMP like any other
extension.  The modules find the runtime at import time as the ``cyocl``
package, so list ``cyocl`` in the project's ``dependencies`` (and in
``build-system.requires``, for this helper and the compiler).
"""
import glob
import os
import sys

from setuptools import Extension

from . import _tool

__all__ = ["cyocl_extensions", "CyoclError"]


class CyoclError(RuntimeError):
    """cyocl rejected a file (its diagnostics are the message)."""


def _module_name(path, root):
    rel = os.path.relpath(path, root)
    if rel.startswith(".." + os.sep) or os.path.isabs(rel):
        raise ValueError(f"{path} is not under root {root!r}")
    parts = rel[:-4].split(os.sep)
    for p in parts:
        if not p.isidentifier():
            raise ValueError(f"{path}: {p!r} is not a Python identifier (module name {'.'.join(parts)})")
    return ".".join(parts)


def cyocl_extensions(patterns, *, root=".", no_opencl=False, no_opencl_gpu=False, fp_contract=False,
                     include_dirs=(), build_dir=None, opt_level="3", quiet=False, **extension_kwargs):
    """Translates every .pyx file matching ``patterns`` (a string or a list;
    ``**`` recurses) and returns one ``setuptools.Extension`` per file.

    - ``root``: the directory module names are relative to
      (``src/pkg/mod.pyx`` with ``root="src"`` is ``pkg.mod``).
    - ``no_opencl``: no OpenCL code, no runtime dependency (``--no-opencl``).
    - ``no_opencl_gpu``: OpenCL on CPU devices only (``--no-opencl-gpu``).
    - ``fp_contract``: ``a * b + c`` may become one fused multiply-add.
    - ``include_dirs``: search path for ``.pxd`` files (``-I``); the .pyx
      file's own directory is always searched.
    - ``build_dir``: where the C files go (default ``build/cyocl``).
    - other keyword arguments go to every ``Extension``.
    """
    if isinstance(patterns, (str, os.PathLike)):
        patterns = [patterns]
    files = []
    for pat in patterns:
        pat = os.fspath(pat)
        hits = sorted(glob.glob(pat, recursive=True)) if glob.has_magic(pat) else [pat]
        if not hits:
            raise ValueError(f"cyocl_extensions: no .pyx file matches {pat!r}")
        for h in hits:
            if not h.endswith(".pyx"):
                raise ValueError(f"cyocl_extensions: {h} is not a .pyx file")
            if not os.path.isfile(h):
                raise FileNotFoundError(h)
            if h not in files:
                files.append(h)
    build_dir = build_dir or os.path.join("build", "cyocl")
    base_flags = _tool.flags(no_opencl, no_opencl_gpu, fp_contract, include_dirs)
    exts = []
    for pyx in files:
        name = _module_name(pyx, root)
        c_file = os.path.join(build_dir, *name.split(".")) + ".c"
        os.makedirs(os.path.dirname(c_file), exist_ok=True)
        args = ["compile"] + base_flags + ["-I", os.path.dirname(pyx) or ".", "-o", c_file, pyx]
        if not quiet:
            print(f"cyocl {' '.join(args)}", file=sys.stderr)
        r = _tool.run(args)
        if r.returncode != 0:
            raise CyoclError(f"cyocl compile failed on {pyx} (exit {r.returncode}):\n{r.stderr}")
        if r.stderr and not quiet:
            sys.stderr.write(r.stderr)
        kw = dict(extension_kwargs)
        # the flags `cyocl build` uses (README, "Command line")
        cflags = [f"-O{opt_level}", "-fopenmp", "-std=gnu11", "-fno-strict-aliasing", "-fwrapv",
                  "-ffp-contract=fast" if fp_contract or opt_level == "fast" else "-ffp-contract=off", "-w"]
        kw["extra_compile_args"] = cflags + list(kw.get("extra_compile_args", []))
        kw["extra_link_args"] = ["-fopenmp"] + list(kw.get("extra_link_args", []))
        kw["libraries"] = list(kw.get("libraries", [])) + ["m"]
        exts.append(Extension(name, [c_file], **kw))
    return exts
