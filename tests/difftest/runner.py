"""Runs the functions of one built module on their inputs (one process per
implementation and thread count).  usage: runner.py MODDIR MODNAME SPECS OUT PROGRESS [FIRST]
SPECS: pickle of [(fname, spec), ...].  OUT gets one pickle record per
function: (fname, outcome, [base arrays after the call]); PROGRESS the name
of the function about to run (so a crash or hang names its culprit)."""
import importlib
import os
import pickle
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from inputs import make_inputs  # noqa: E402


def norm(v):
    if isinstance(v, tuple):
        return tuple(norm(x) for x in v)
    if isinstance(v, (bool, int, float)) or v is None:
        return v
    return ("repr", type(v).__name__, repr(v))


def main():
    moddir, modname, specs, outp, prog = sys.argv[1:6]
    first = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    sys.path.insert(0, moddir)
    mod = importlib.import_module(modname)
    with open(specs, "rb") as f:
        todo = pickle.load(f)
    with open(outp, "ab") as out, open(prog, "a") as pf:
        for fname, spec in todo[first:]:
            pf.write(fname + "\n")
            pf.flush()
            args, bases = make_inputs(spec)
            try:
                r = getattr(mod, fname)(*args)
                outcome = ("ret", norm(r))
            except Exception as e:  # noqa: BLE001
                outcome = ("exc", type(e).__name__, str(e))
            pickle.dump((fname, outcome, [b.copy() for b in bases]), out)
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
