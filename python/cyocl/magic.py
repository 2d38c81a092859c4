"""The ``%%cyocl`` cell magic (``%load_ext cyocl``), like Cython's ``%%cython``.

    %%cyocl [--no-opencl] [--no-opencl-gpu] [--fp-contract] [-O LEVEL] [-I DIR] [-v] [--keep-c] [-f]
    from cython.parallel import prange
    def total(double[:] x): ...

The cell is written to a .pyx file named after a hash of its text, the
flags, cyocl's version and the Python, built with ``cyocl build`` into
IPython's cache directory (``-f``: again even when built before), imported,
and its public names are put into the user's namespace.  The flags are those
of ``cyocl build``; diagnostics are printed as on the command line.
"""
import hashlib
import importlib.util
import os
import shlex
import sys

from IPython.core.magic import Magics, cell_magic, magics_class

from . import _config, _tool


def _cache_dir():
    try:
        from IPython.paths import get_ipython_cache_dir

        base = get_ipython_cache_dir()
    except Exception:  # pragma: no cover - very old IPython
        base = os.path.join(os.path.expanduser("~"), ".cache", "ipython")
    return os.path.join(base, "cyocl")


@magics_class
class CyoclMagics(Magics):
    _forced = 0

    @cell_magic
    def cyocl(self, line, cell):
        """Compile the cell with cyocl, import it, and put its names into the namespace."""
        args = shlex.split(line)
        force = False
        for f in ("-f", "--force"):
            while f in args:
                args.remove(f)
                force = True
        for a in args:
            if a in ("-o", "--output") or a.startswith("--output=") or (a.startswith("-o") and len(a) > 2):
                print("%%cyocl: -o is chosen by the magic (the build goes to IPython's cache)", file=sys.stderr)
                return None
        key = "\0".join([cell, " ".join(args), _config.VERSION, sys.version, sys.executable])
        name = "_cyocl_magic_" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:20]
        if force:
            # a module already loaded under its name cannot be loaded again
            CyoclMagics._forced += 1
            name += f"_{os.getpid()}_{CyoclMagics._forced}"
        outdir = os.environ.get("CYOCL_MAGIC_DIR") or _cache_dir()
        os.makedirs(outdir, exist_ok=True)
        import sysconfig

        so = os.path.join(outdir, name + sysconfig.get_config_var("EXT_SUFFIX"))
        if force or not os.path.exists(so):
            pyx = os.path.join(outdir, name + ".pyx")
            with open(pyx, "w", encoding="utf-8") as f:
                f.write(cell)
                if not cell.endswith("\n"):
                    f.write("\n")
            r = _tool.run(["build"] + args + ["-o", outdir, pyx])
            if r.stdout:
                sys.stdout.write(r.stdout)
            if r.stderr:
                # the file name is the cell's: show it as such
                sys.stderr.write(r.stderr.replace(pyx, "<cell>").replace(name + ".pyx", "<cell>"))
            if r.returncode != 0:
                print(f"%%cyocl: cyocl build failed (exit {r.returncode})", file=sys.stderr)
                return None
        spec = importlib.util.spec_from_file_location(name, so)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        self.shell.push({n: getattr(module, n) for n in names})
        return None
