#!/usr/bin/env python3
"""tests/real: kernels written the way public Cython code is written, each
built four ways from the same .pyx and checked against numpy and against
the Cython build.

For every NAME.pyx here with a NAME_check.py beside it:
  - cyocl build --no-opencl                    (run once)
  - cyocl build (default)  with CYOCL_FORCE=native and CYOCL_FORCE=opencl
  - Cython + OpenMP        (the reference)
NAME.pxd, NAME_*.pxd and NAME_*.pxi beside it are its own declarations and
the files it cimports and includes (copied with it for the Cython build).
NAME_check.py defines check(mod), which asserts against numpy and returns
the results it computed (any mix of tuples, lists, dicts, numbers, arrays);
each cyocl variant's results must match the Cython build's: integers and
shapes exactly, floats to rtol 1e-9 (parallel reductions may add in another
order).  `cyocl compile -v` must list a decision for every region of the
file; a file headed '# expect-opencl: yes' must run at least one region on
OpenCL under CYOCL_FORCE=opencl when `cyocl devices` finds a device.

    tests/real/run.py --cyocl build/cyocl [--only NAME] [--work DIR] [--no-cython]

Exit 0 when everything passed, 1 otherwise, 77 (skip) when Cython is not
importable and --no-cython was not given.
"""
import argparse, json, os, pickle, re, shutil, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

DRIVER = textwrap.dedent("""
    import sys, pickle, importlib, importlib.util
    sys.path.insert(0, sys.argv[1])
    mod = importlib.import_module(sys.argv[2])
    spec = importlib.util.spec_from_file_location("real_check", sys.argv[3])
    chk = importlib.util.module_from_spec(spec); spec.loader.exec_module(chk)
    res = chk.check(mod)
    with open(sys.argv[4], "wb") as f:
        pickle.dump(res, f)
""")


def run(cmd, env=None, cwd=None, timeout=600):
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return -999, "timed out after %ss" % timeout


def companions(pyx):
    """The .pxd and .pxi files a case NAME brings with it: NAME.pxd (its own
    declarations) and NAME_*.pxd / NAME_*.pxi (cimported, included)."""
    d, name = os.path.split(pyx)
    name = name[:-4]
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith((".pxd", ".pxi")) and (f == name + ".pxd" or f.startswith(name + "_")))


def build_cython(pyx, out):
    """Builds the reference; reuses the module in `out` when it was built
    from the same source by the same Cython (the reference does not change
    with cyocl, and its C compile is most of the suite's time)."""
    import hashlib, Cython, glob
    os.makedirs(out, exist_ok=True)
    name = os.path.splitext(os.path.basename(pyx))[0]
    text = b""
    for fn in [pyx] + companions(pyx):
        with open(fn, "rb") as f:
            text += fn.encode() + b"\0" + f.read()
    key = hashlib.sha256(text + Cython.__version__.encode() + sys.version.encode()).hexdigest()
    stamp = os.path.join(out, "built-from.sha256")
    if glob.glob(os.path.join(out, name + ".*.so")) and os.path.exists(stamp) and open(stamp).read() == key:
        return 0, "reused"
    if os.path.exists(stamp):
        os.remove(stamp)
    for fn in [pyx] + companions(pyx):
        shutil.copy(fn, out)
    setup = os.path.join(out, "setup_%s.py" % name)
    with open(setup, "w") as f:
        f.write(textwrap.dedent(f"""
            from setuptools import setup, Extension
            from Cython.Build import cythonize
            import numpy
            setup(script_args=["build_ext", "--inplace", "-q"],
                  ext_modules=cythonize([Extension({name!r}, [{name + '.pyx'!r}],
                      include_dirs=[numpy.get_include()],
                      extra_compile_args=["-O2", "-fopenmp"], extra_link_args=["-fopenmp"])],
                      language_level=3, quiet=True))
        """))
    rc, log = run([sys.executable, setup], cwd=out)
    if rc == 0:
        with open(stamp, "w") as f:
            f.write(key)
    return rc, log


def same(a, b, path="result"):
    """None when a (cyocl) matches b (Cython), else where they differ."""
    import numpy as np
    if isinstance(b, dict):
        if not isinstance(a, dict) or a.keys() != b.keys():
            return path + ": keys differ"
        for k in b:
            d = same(a[k], b[k], "%s[%r]" % (path, k))
            if d:
                return d
        return None
    if isinstance(b, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            return path + ": %r vs %r" % (type(a).__name__, type(b).__name__)
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if isinstance(b, np.ndarray) or isinstance(b, (float, np.floating, complex)):
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape or x.dtype != y.dtype:
            return "%s: shape/dtype %s %s vs %s %s" % (path, x.shape, x.dtype, y.shape, y.dtype)
        if x.dtype.kind in "fc":
            ok = np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True)
        else:
            ok = np.array_equal(x, y)
        return None if ok else path + ": values differ"
    return None if a == b and type(a) is type(b) else "%s: %r vs %r" % (path, a, b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.environ.get("CYOCL", "build/cyocl"))
    ap.add_argument("--only", default="")
    ap.add_argument("--work")
    ap.add_argument("--no-cython", action="store_true")
    a = ap.parse_args()
    cyocl = os.path.abspath(a.cyocl)
    if not a.no_cython:
        try:
            import Cython  # noqa: F401
        except ImportError:
            print("SKIP: Cython is not importable (use --no-cython to check against numpy only)")
            return 77
    # absolute: the Cython builds run in their own directories
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="cyocl-real-"))
    os.makedirs(work, exist_ok=True)
    have_device = run([cyocl, "devices"])[0] == 0
    names = sorted(f[:-4] for f in os.listdir(HERE)
                   if f.endswith(".pyx") and os.path.exists(os.path.join(HERE, f[:-4] + "_check.py")))
    if a.only:
        names = [n for n in names if n == a.only]
    failed = passed = 0

    def record(ok, label, detail=""):
        nonlocal failed, passed
        print(("PASS " if ok else "FAIL ") + label)
        if not ok:
            failed += 1
            if detail:
                print(textwrap.indent(detail.strip()[-3000:], "    "))
        else:
            passed += 1

    for name in names:
        pyx = os.path.join(HERE, name + ".pyx")
        chk = os.path.join(HERE, name + "_check.py")
        with open(pyx) as f:
            head = "".join(f.readline() for _ in range(10))
        expect_ocl = "# expect-opencl: yes" in head
        # every region gets a decision in `cyocl compile -v`
        rc, log = run([cyocl, "compile", "-v", "-o", os.path.join(work, name + ".c"), pyx])
        nreg = len(re.findall(r"^\s*(?:for|with)\b.*\b(?:prange|parallel)\b", open(pyx).read(), re.M))
        decided = re.findall(r"region \d+ \(function [^)]*\): (opencl|native.*)", log)
        record(rc == 0 and len(decided) >= nreg and nreg > 0,
               f"{name} [compile -v: {len(decided)} region(s) decided, {sum(d == 'opencl' for d in decided)} opencl]",
               log)
        ref = None
        if not a.no_cython:
            out = os.path.join(work, "cython", name)
            rc, log = build_cython(pyx, out)
            if rc != 0:
                record(False, f"{name} [cython build]", log)
                continue
            res = os.path.join(out, "result.pkl")
            rc, log = run([sys.executable, "-c", DRIVER, out, name, chk, res])
            record(rc == 0, f"{name} [cython]", log)
            if rc != 0:
                continue
            with open(res, "rb") as f:
                ref = pickle.load(f)
        for variant, flags, forces in (("no-opencl", ["--no-opencl"], [None]),
                                       ("opencl", [], ["native", "opencl"])):
            out = os.path.join(work, variant, name)
            os.makedirs(out, exist_ok=True)
            rc, log = run([cyocl, "build", *flags, "-o", out, pyx])
            if rc != 0:
                record(False, f"{name} [{variant} build]", log)
                continue
            for force in forces:
                env = dict(os.environ)
                env.pop("CYOCL_FORCE", None)
                if force:
                    env["CYOCL_FORCE"] = force
                trace = os.path.join(out, "trace-%s.jsonl" % force)
                if os.path.exists(trace):
                    os.remove(trace)
                env["CYOCL_TRACE"] = trace
                label = f"{name} [{variant}" + (f" force={force}" if force else "") + "]"
                res = os.path.join(out, "result-%s.pkl" % force)
                rc, log = run([sys.executable, "-c", DRIVER, out, name, chk, res], env=env)
                if rc != 0:
                    record(False, label, log)
                    continue
                if ref is not None:
                    with open(res, "rb") as f:
                        diff = same(pickle.load(f), ref)
                    if diff:
                        record(False, label + " vs cython", diff)
                        continue
                if force == "opencl" and expect_ocl and have_device:
                    impls = set()
                    if os.path.exists(trace):
                        with open(trace) as f:
                            impls = {json.loads(line).get("impl") for line in f if line.strip()}
                    if "opencl" not in impls:
                        record(False, label + " trace", "no region ran on OpenCL: %s" % sorted(map(str, impls)))
                        continue
                record(True, label + (" = cython" if ref is not None else ""))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not names else 0


if __name__ == "__main__":
    sys.exit(main())
