#!/usr/bin/env python3
"""Replays the reproducers the differential tester found: every dNNN_*.pyx is
built with Cython 3 + OpenMP (dNNN_*.cython.pyx where the case uses cyocl's
slice expressions) and with cyocl, its driver dNNN_*.py runs in each build
(cyocl: --no-opencl, CYOCL_FORCE=native, CYOCL_FORCE=opencl when a device
exists) and the printed outputs must be Cython's.  A case passes once its bug
is fixed.   usage: check.py [--cyocl PATH] [-k SUBSTR] [--threads N]
Closing line: 'N passed, N failed'."""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from difftest import build_cython, build_cyocl, run, ROOT  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("-k", default="")
    ap.add_argument("--threads", default="3")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cyocl-found-")
    rc, _ = run([a.cyocl, "devices"])
    have_dev = rc == 0
    passed = failed = 0
    for pyx in sorted(glob.glob(os.path.join(HERE, "d[0-9]*.pyx"))):
        if pyx.endswith(".cython.pyx") or a.k not in pyx:
            continue
        base = os.path.basename(pyx)[:-4]
        drv = os.path.join(HERE, base + ".py")
        cy_src = open(pyx.replace(".pyx", ".cython.pyx") if os.path.exists(pyx.replace(".pyx", ".cython.pyx"))
                      else pyx).read()
        src = open(pyx).read()
        d = os.path.join(work, base)
        rc, out = build_cython(cy_src, os.path.join(d, "cython"), base, "-O1")
        if rc:
            print("FAIL %s [cython build]\n%s" % (base, out[-1500:]))
            failed += 1
            continue
        env = dict(os.environ, OMP_NUM_THREADS=a.threads)
        env.pop("CYOCL_FORCE", None)
        rc, ref = run([sys.executable, drv, base], env=env, cwd=os.path.join(d, "cython"))
        builds = [("noocl", False, None), ("native", True, "native")]
        if have_dev:
            builds.append(("opencl", True, "opencl"))
        ok = True
        for label, ocl, force in builds:
            bd = os.path.join(d, "ocl" if ocl else "noocl")
            if not os.path.exists(bd):
                rc, out = build_cyocl(a.cyocl, src, bd, base, ocl)
                if rc:
                    print("FAIL %s [cyocl build %s]\n%s" % (base, label, out[-1500:]))
                    ok = False
                    break
            e = dict(env)
            if force:
                e["CYOCL_FORCE"] = force
            rc, got = run([sys.executable, drv, base], env=e, cwd=bd)
            if got != ref:
                print("FAIL %s [%s]\n  Cython: %s\n  cyocl:  %s" % (base, label, ref.strip().replace("\n", "\n          "),
                                                                 got.strip().replace("\n", "\n          ")))
                ok = False
        if ok:
            print("PASS %s" % base)
            passed += 1
        else:
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
