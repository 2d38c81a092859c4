#!/usr/bin/env python3
"""End-to-end tests: build each tests/e2e/NAME.pyx (and NAME_pure.py, a
module in Cython's pure-Python mode) with `cyocl build`, import
it and run NAME_check.py's check(mod).

Each case is built twice: with --no-opencl (run once) and by default (run
with CYOCL_FORCE=native, CYOCL_FORCE=opencl — a region OpenCL cannot take
stays native — and with the dispatcher's automatic choice).  When the module writes a CYOCL_TRACE file, every line must be
a JSON object with an "impl" (or a well-formed "event": "sync" record), and
under CYOCL_FORCE=native every impl must be "native" and nothing may move.

Usage: run.py [--cyocl PATH] [--dir DIR] [--work DIR] [--only NAME ...] [-k SUBSTR]
Closing line: 'N passed, N failed'; exit status 1 when anything failed or
nothing ran.
"""
import argparse, json, os, subprocess, sys, tempfile, textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHECK_DRIVER = textwrap.dedent("""
    import sys, importlib, importlib.util
    sys.path.insert(0, sys.argv[1])
    mod = importlib.import_module(sys.argv[2])
    spec = importlib.util.spec_from_file_location("case_check", sys.argv[3])
    chk = importlib.util.module_from_spec(spec); spec.loader.exec_module(chk)
    chk.check(mod)
""")


def run(cmd, env=None, timeout=300):
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return -1, "timed out after %ss" % timeout


def check_trace(path, force):
    if not os.path.exists(path):
        return None  # the runtime does not trace (yet): nothing to check
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except ValueError as e:
                return "trace line %d is not JSON (%s): %r" % (n, e, line[:200])
            if isinstance(rec, dict) and rec.get("event") == "sync":
                # data brought back outside a region (docs/trace.md)
                if force == "native":
                    return "trace line %d moved data under CYOCL_FORCE=native" % n
                if not isinstance(rec.get("bytes_to_host"), int) or rec.get("reason") not in ("return", "host use"):
                    return "trace line %d is a malformed sync record: %r" % (n, rec)
                continue
            impl = rec.get("impl") if isinstance(rec, dict) else None
            if impl not in ("native", "opencl"):
                return "trace line %d has impl %r" % (n, impl)
            if force == "native" and impl != "native":
                return "trace line %d ran on %s under CYOCL_FORCE=native" % (n, impl)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--dir", default=HERE)
    ap.add_argument("--work")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("-k", default="")
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="cyocl-e2e-")
    results = []

    def record(ok, label, detail=""):
        results.append(ok)
        print(("PASS " if ok else "FAIL ") + label, flush=True)
        if not ok and detail:
            print(textwrap.indent(detail.strip()[-4000:], "    "), flush=True)

    # NAME.pyx, and NAME_pure.py: a module in Cython's pure-Python mode
    names = sorted(fn[:-4] if fn.endswith(".pyx") else fn[:-3] for fn in os.listdir(a.dir)
                   if fn.endswith(".pyx") or fn.endswith("_pure.py"))
    for name in names:
        if (a.only and name not in a.only) or a.k not in name:
            continue
        pyx = os.path.join(a.dir, name + (".py" if name.endswith("_pure") else ".pyx"))
        chk = os.path.join(a.dir, name + "_check.py")
        if not os.path.exists(chk):
            record(False, name, "missing %s" % chk)
            continue
        # a line `# e2e-build-flags: --fp-contract` adds flags to both builds
        extra = []
        with open(pyx) as f:
            for line in f:
                if line.startswith("# e2e-build-flags:"):
                    extra += line.split(":", 1)[1].split()
        for variant, flags, forces in (("no-opencl", ["--no-opencl"], [None]),
                                       ("default", [], ["native", "opencl", None])):
            out = os.path.join(work, variant, name)
            os.makedirs(out, exist_ok=True)
            rc, log = run([a.cyocl, "build", *flags, *extra, "-o", out, pyx], timeout=a.timeout)
            if rc != 0:
                record(False, "%s [%s build]" % (name, variant), "exit %d\n%s" % (rc, log))
                continue
            for force in forces:
                env = dict(os.environ)
                env.pop("CYOCL_FORCE", None)
                trace = os.path.join(out, "trace-%s.jsonl" % (force or "auto"))
                if os.path.exists(trace):
                    os.remove(trace)
                env["CYOCL_TRACE"] = trace
                env.setdefault("CYOCL_CACHE_DIR", os.path.join(work, "kcache"))  # not the user's cache
                if force:
                    env["CYOCL_FORCE"] = force
                label = "%s [%s%s]" % (name, variant, " force=" + force if force else "")
                rc, log = run([sys.executable, "-c", CHECK_DRIVER, out, name, chk], env=env,
                              timeout=a.timeout)
                if rc != 0:
                    record(False, label, log)
                    continue
                problem = check_trace(trace, force)
                record(problem is None, label, problem or "")

    passed = sum(results)
    failed = len(results) - passed
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
