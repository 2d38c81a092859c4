#!/usr/bin/env python3
"""Fault tests of the Python path: tests/fault/faulty.pyx, built with
`cyocl build`, run under CYOCL_FORCE=opencl with the OpenCL loader replaced
by tests/fault/clshim.c (CYOCL_OPENCL_LIBRARY), which fails the calls
CYOCL_FAULT names (NAME[:K]: from the K-th call on).

One fresh python3 per fault.  Each must
  - compute exactly what numpy computes (every call, also those after the
    failure), and exit 0;
  - print at most one cyocl warning on stderr (the RuntimeWarning
    "cyocl: OpenCL failed: ... (region at faulty.pyx:LINE in FUNC());
    running natively", or "cyocl: CYOCL_FORCE=opencl but ..." when there
    is no platform), naming the region, never a kernel (cyk_N), and
    exactly one when the fault stops the device path (MUST_FALL_BACK
    below) — also when the fault means "no OpenCL platform": the user
    forced OpenCL and did not get it;
  - trace (CYOCL_TRACE) only impl "opencl" lines or impl "native" lines
    whose reason starts with "fallback:", at least one of those whenever a
    warning was given.
A run without faults first must run every region on OpenCL, silently; it
also counts the OpenCL calls the workload makes (CYOCL_FAULT_COUNTS), so
that calls it never makes are not "tested", and the main calls are failed
at several K (first, second, ..., last call).  With a kernel cache the
program calls are failed once more with the cache filled (the binary path).
Finally the no-platform fault once without CYOCL_FORCE: the automatic
choice, which must stay quiet or warn once, and compute correctly; and
fork with a failing device: os.fork() inside cyocl.resident while the
device holds the only copy, with the copy back failing from the K-th
transfer on: the child never hangs and never computes on stale data
silently (it gets the data, or a RuntimeError that says it is lost).

--valgrind adds one run under valgrind (slow: the OpenCL compiler runs
under it too), which must report no definite leak in cyocl's code.

Exit 77 when `cyocl devices` finds no device (nothing to fail).
"""
import argparse, concurrent.futures, json, os, re, shutil, subprocess, sys, tempfile, textwrap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import run, trace_regions  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The calls whose failure (at their first call) leaves the device path with
# no way on: the region must run natively, with one warning.
MUST_FALL_BACK = {
    "clGetPlatformIDs", "clGetDeviceIDs", "clCreateContext", "clCreateCommandQueue",
    "clCreateProgramWithSource", "clBuildProgram", "clCreateKernel", "clSetKernelArg",
    "clCreateBuffer", "clEnqueueWriteBuffer", "clEnqueueNDRangeKernel", "clEnqueueReadBuffer",
}
# Failed at several call numbers K.
SWEPT = MUST_FALL_BACK | {"clEnqueueCopyBuffer", "clFinish", "clCreateProgramWithBinary",
                          "clGetProgramInfo"}
# Failed at every call number K.
FULL_SWEEP = {"clEnqueueReadBuffer"}
# Transfers back: when one fails while the device holds the only copy of a
# def call's results, that call raises RuntimeError (nothing can rerun it).
MAY_LOSE = {"clEnqueueReadBuffer", "clEnqueueCopyBuffer", "clFinish"}
# "No OpenCL platform": the runtime may fall back quietly.
NO_PLATFORM = {"clGetPlatformIDs", "clGetDeviceIDs"}
PROGRAM_CALLS = {"clCreateProgramWithSource", "clCreateProgramWithBinary", "clBuildProgram",
                 "clGetProgramInfo", "clGetProgramBuildInfo", "clCreateKernel"}

DRIVER = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, sys.argv[1])
    import faulty
    LOST = "cyocl: copying results back from the device failed"
    def eq(got, want, what):
        if not np.array_equal(got, want):
            raise SystemExit("WRONG %s: %r != %r" % (what, got, want))
    def case(what, fn):
        # data that only the device held when it failed cannot come back:
        # the call raises (never returns wrong data); say so and go on
        try:
            fn()
        except RuntimeError as e:
            if not str(e).startswith(LOST):
                raise
            print("LOST %s: %s" % (what, e))
    for rep in range(2):
        for n in (0, 1, 1000, 70001):
            # values whose arithmetic is exact: a contracted a*b+c (fma) on
            # the device gives bit for bit what the host gives
            def scaled():
                x = (np.arange(n) % 1000 - 300) * 0.25
                eq(faulty.scaled(x, 2.5), x * 2.5 + 1.0, "scaled n=%d" % n)
            def total():
                a = (np.arange(n, dtype=np.int64) % 1013) - 400
                eq(faulty.total(a), int(a.sum()), "total n=%d" % n)
            def bump():
                b = (np.arange(n) % 77) * 0.5
                want = b * 0.5 + 3.0
                faulty.bump(b, 3.0)
                eq(b, want, "bump n=%d" % n)
            def bump_strided():
                c = (np.arange(2 * n) % 91) * 0.25
                cw = c.copy()
                cw[1::2] = cw[1::2] * 0.5 - 1.0
                faulty.bump(c[1::2], -1.0)
                eq(c, cw, "bump strided n=%d" % n)
            def two_steps():
                d = np.arange(n, dtype=np.int64) - 7
                dw = d * 3 - 1
                eq(faulty.two_steps(d), int(dw.sum()), "two_steps sum n=%d" % n)
                eq(d, dw, "two_steps array n=%d" % n)
            def three_steps():
                d = np.arange(n, dtype=np.int64) - 7
                dw = d * 3 - 1 + 5
                faulty.three_steps(d)
                eq(d, dw, "three_steps n=%d" % n)
            for f in (scaled, total, bump, bump_strided, two_steps, three_steps):
                case("%s n=%d" % (f.__name__, n), f)
    print("OK")
""")


WARN_RE = re.compile(r"RuntimeWarning: cyocl|^cyocl: warning:")


class Runner:
    def __init__(self, a, out):
        self.a, self.out = a, out

    def env(self, tag, fault=None, force="opencl", cache=None, counts=None, staging=None):
        env = dict(os.environ)
        for k in ("CYOCL_FAULT", "CYOCL_FAULT_COUNTS", "CYOCL_FORCE", "CYOCL_DEVICE",
                  "CYOCL_DEVICE_TYPE", "CYOCL_VERBOSE", "CYOCL_CACHE", "CYOCL_STAGING"):
            env.pop(k, None)
        if staging:
            env["CYOCL_STAGING"] = staging
        env["CYOCL_OPENCL_LIBRARY"] = self.a.shim
        if fault:
            env["CYOCL_FAULT"] = fault
        if force:
            env["CYOCL_FORCE"] = force
        if counts:
            env["CYOCL_FAULT_COUNTS"] = counts
        d = os.path.join(self.a.work, "runs", tag)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        if cache:
            shutil.copytree(cache, os.path.join(d, "cache"))
        env["CYOCL_CACHE_DIR"] = os.path.join(d, "cache")
        env["CYOCL_TRACE"] = os.path.join(d, "trace.jsonl")
        return env

    def once(self, tag, fault=None, force="opencl", cache=None, counts=None, prefix=(), staged=False):
        env = self.env(tag, fault, force, cache, counts, "on" if staged else None)
        driver = DRIVER.replace("(0, 1, 1000, 70001)", "(1200003,)") if staged else DRIVER
        rc, out, err = run([*prefix, sys.executable, "-W", "always", "-c", driver, self.out], env,
                           timeout=self.a.timeout)
        return rc, out, err, trace_regions(env["CYOCL_TRACE"]), env

    def judge(self, tag, must_fall_back, rc, out, err, trace, forced=True, may_lose=False,
              quiet_ok=False):
        """The problems of one faulty run (empty: it passed).  may_lose: the
        device may fail while it holds the only copy of a def call's
        results (a transfer back failed): that call must then raise
        RuntimeError, and the runtime may say so on stderr as well.
        quiet_ok: the fault means "no OpenCL platform", which the runtime
        may take quietly."""
        bad = []
        if rc != 0 or "OK" not in out:
            bad.append("exit %d, stdout %r" % (rc, out[-300:]))
        lost = [l for l in out.splitlines() if l.startswith("LOST")]
        if lost and not may_lose:
            bad.append("results lost although no transfer back failed: %r" % lost[:3])
        lines = [l for l in err.splitlines() if l.strip()]
        if lost:
            lines = [l for l in lines if "copying data back from the device failed" not in l and
                     "copying results back from the device failed" not in l]
        warns = [l for l in lines if WARN_RE.search(l)]
        # Python prints the warning's source line under it, indented
        other = [l for l in lines if not WARN_RE.search(l) and not l.startswith("  ")]
        if other:
            bad.append("unexpected stderr: %r" % other[:5])
        if len(warns) > 1:
            bad.append("%d warnings, not one: %r" % (len(warns), warns))
        if any(re.search(r"\bcyk_\d", l) for l in lines):
            bad.append("a kernel's internal name in stderr: %r" % [l for l in lines if "cyk_" in l][:2])
        if warns and not any(re.search(r"\(region at faulty\.pyx:\d+ in \w+\(\)\)", w) for w in warns):
            bad.append("the warning names no region (faulty.pyx:LINE in FUNC()): %r" % warns)
        if must_fall_back and len(warns) != 1 and not (quiet_ok and not warns):
            bad.append("the fault stops the device path but %d warnings were given" % len(warns))
        for r in (trace if forced else []):
            if r.get("impl") == "native" and not (str(r.get("reason", "")).startswith("fallback:") or
                                                   str(r.get("reason", "")).startswith("not-eligible")):
                bad.append("trace: native with reason %r under CYOCL_FORCE=opencl" % r.get("reason"))
                break
        fell = [r for r in trace if r.get("impl") == "native" and
                str(r.get("reason", "")).startswith("fallback:")]
        if warns and not fell and not lost:
            bad.append("a warning but no trace line with impl native and reason fallback:")
        if must_fall_back and not fell:
            bad.append("no trace line with impl native, reason fallback:")
        return bad


FORK = textwrap.dedent("""
    import sys, os, time, numpy as np
    sys.path.insert(0, sys.argv[1])
    import faulty, cyocl
    LOST = "lost in this process"
    n = 70001
    b = (np.arange(n) % 77) * 0.5
    want = b * 0.5 + 3.0
    r, w = os.pipe()
    try:
        with cyocl.resident(b):
            faulty.bump(b, 3.0)
            pid = os.fork()
            if pid == 0:
                os.close(r)
                out = []
                for what, f in (("to_host", lambda: cyocl.to_host(b)), ("total", lambda: faulty.scaled(b, 1.0)),
                                ("bump", lambda: faulty.bump(b, 0.0))):
                    try:
                        got = f()
                        if what == "to_host":
                            out.append("%s %s" % (what, "right" if np.array_equal(b, want) else "WRONG"))
                        elif what == "total":
                            ok = np.array_equal(got, want + 1.0)
                            out.append("%s %s" % (what, "right" if ok else "WRONG"))
                        else:
                            out.append("%s done" % what)
                    except RuntimeError as e:
                        out.append("%s %s" % (what, "lost" if LOST in str(e) else "error: %s" % e))
                os.write(w, ("\\n".join(out) + "\\n").encode())
                os._exit(0)
            os.close(w)
            t0 = time.time()
            while time.time() - t0 < 120:
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                time.sleep(0.05)
            else:
                os.kill(pid, 9)
                print("HANG", flush=True)
                os._exit(3)
            print(os.read(r, 4096).decode(), end="", flush=True)
    except RuntimeError as e:
        print("parent: %s" % e, flush=True)  # the parent's device failed too: it says so
    print("OK", flush=True)
""")


def counts_of(path):
    c = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                name, n = line.split()
                c[name] = c.get(name, 0) + int(n)
    return c


def ks(n):
    return sorted({k for k in (1, 2, 3, n // 2, n - 1, n) if 1 <= k <= n})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--shim", default=os.path.join(ROOT, "build", "tests", "libclshim.so"))
    ap.add_argument("--work")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--valgrind", action="store_true")
    ap.add_argument("-k", default="", help="only faults containing this")
    a = ap.parse_args()
    a.work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="cyocl-fault-"))
    os.makedirs(a.work, exist_ok=True)

    rc, out, err = run([a.cyocl, "devices"])
    if rc != 0:
        print("SKIP: `cyocl devices` exited %d: no OpenCL device to fail\n%s" % (rc, out + err))
        return 77
    if not os.path.exists(a.shim):
        print("FAIL: no shim at %s" % a.shim)
        return 1
    out = os.path.join(a.work, "mod")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    rc, o, e = run([a.cyocl, "build", "-o", out, os.path.join(HERE, "faulty.pyx")])
    if rc != 0:
        print("FAIL: cyocl build exited %d\n%s" % (rc, o + e))
        return 1
    R = Runner(a, out)
    results = []

    def record(ok, label, detail=""):
        results.append(ok)
        print(("PASS " if ok else "FAIL ") + label, flush=True)
        if not ok and detail:
            print(textwrap.indent(detail.strip()[-3000:], "    "), flush=True)

    # ---- without faults: all on OpenCL, silent; the calls it makes
    cold_counts = os.path.join(a.work, "counts-cold.txt")
    if os.path.exists(cold_counts):
        os.remove(cold_counts)
    rc, o, e, trace, env = R.once("baseline", counts=cold_counts)
    base_bad = R.judge("baseline", False, rc, o, e, trace)
    if any(r.get("impl") != "opencl" for r in trace) or not trace:
        base_bad.append("not every region ran on OpenCL: %r" %
                        sorted({str((r.get("impl"), r.get("reason"))) for r in trace}))
    if WARN_RE.search(e):
        base_bad.append("warnings without a fault: %r" % e[-500:])
    record(not base_bad, "baseline (shim, no fault)", "\n".join(base_bad))
    if base_bad:
        print("%d passed, %d failed" % (sum(results), len(results) - sum(results)))
        return 1
    cold = counts_of(cold_counts)
    warm_cache = os.path.join(a.work, "runs", "baseline", "cache")

    jobs = []  # (tag, fault, must_fall_back, cache)
    for name, n in sorted(cold.items()):
        for k in (range(1, n + 1) if name in FULL_SWEEP else ks(n) if name in SWEPT else [1]):
            jobs.append(("cold-%s-%d" % (name, k), name, k, None))
    # the kernel cache, when there is one: the program calls with it filled
    warm_counts = os.path.join(a.work, "counts-warm.txt")
    if os.path.exists(warm_counts):
        os.remove(warm_counts)
    if os.path.isdir(warm_cache) and os.listdir(warm_cache):
        rc, o, e, trace, env = R.once("baseline-warm", cache=warm_cache, counts=warm_counts)
        bad = R.judge("baseline-warm", False, rc, o, e, trace)
        if WARN_RE.search(e) or any(r.get("impl") != "opencl" for r in trace):
            bad.append("the run with a filled cache did not run everything on OpenCL silently")
        record(not bad, "baseline (shim, no fault, kernel cache filled)", "\n".join(bad))
        for name, n in sorted(counts_of(warm_counts).items()):
            if name in PROGRAM_CALLS:
                for k in ks(n):
                    jobs.append(("warm-%s-%d" % (name, k), name, k, warm_cache))
    jobs = [j for j in jobs if a.k in j[1]]

    def one(job):
        tag, name, k, cache = job
        rc, o, e, trace, env = R.once(tag, fault="%s:%d" % (name, k), cache=cache)
        must = name in MUST_FALL_BACK and k == 1
        bad = R.judge(tag, must, rc, o, e, trace, may_lose=name in MAY_LOSE and k > 1,
                      quiet_ok=name in NO_PLATFORM)
        return job, must, bad, o, e

    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        for (tag, name, k, cache), must, bad, o, e in ex.map(one, jobs):
            label = "%s:%d%s%s" % (name, k, " (cache filled)" if cache else "",
                                   " [must fall back]" if must else "")
            lost = sum(l.startswith("LOST") for l in o.splitlines())
            if lost and not bad:
                label += " (%d calls raised: results lost on the failed device)" % lost
            record(not bad, label, "\n".join(bad) + ("\nstdout:\n" + o[-1000:] + "\nstderr:\n" + e[-1500:] if bad else ""))

    # copies through the pinned staging buffers (CYOCL_STAGING=on: on PoCL
    # too), arrays of 9.6 MB (3 chunks): the staging calls failed at every K
    if not a.k or a.k in "staging":
        sc = os.path.join(a.work, "counts-staged.txt")
        if os.path.exists(sc):
            os.remove(sc)
        rc, o, e, trace, env = R.once("staged", counts=sc, staged=True)
        bad = R.judge("staged", False, rc, o, e, trace)
        if WARN_RE.search(e) or any(r.get("impl") != "opencl" for r in trace):
            bad.append("the staged run did not run everything on OpenCL silently")
        staged_counts = counts_of(sc)
        if not staged_counts.get("clEnqueueMapBuffer"):
            bad.append("no staging buffer was mapped: %r" % staged_counts)
        record(not bad, "staged copies (no fault)", "\n".join(bad))
        sjobs = [(name, k) for name in ("clEnqueueMapBuffer", "clEnqueueWriteBuffer", "clEnqueueReadBuffer",
                                        "clWaitForEvents") for k in ks(staged_counts.get(name, 0))]

        def sone(job):
            name, k = job
            rc, o, e, trace, env = R.once("staged-%s-%d" % (name, k), fault="%s:%d" % (name, k), staged=True)
            return job, R.judge("staged", False, rc, o, e, trace, may_lose=k > 1 and name != "clEnqueueMapBuffer"), o, e

        with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
            for (name, k), bad, o, e in ex.map(sone, sjobs):
                record(not bad, "staged %s:%d" % (name, k),
                       "\n".join(bad) + ("\nstdout:\n" + o[-1000:] + "\nstderr:\n" + e[-1500:] if bad else ""))

    # no platform, automatic choice: quiet, or one warning; right results
    if not a.k or a.k in "clGetPlatformIDs":
        rc, o, e, trace, env = R.once("auto-noplatform", fault="clGetPlatformIDs", force=None)
        bad = R.judge("auto-noplatform", False, rc, o, e, trace, forced=False)
        if any(r.get("impl") != "native" for r in trace):
            bad.append("a region ran on OpenCL without a platform")
        record(not bad, "clGetPlatformIDs without CYOCL_FORCE (automatic choice)", "\n".join(bad))

    # fork while the device holds the only copy, the copy back failing from the K-th on
    if not a.k or a.k in "fork":
        lost_seen = False
        for k in (1, 2, 3, 4):
            env = R.env("fork-%d" % k, fault="clEnqueueReadBuffer:%d" % k)
            rc, o, e = run([sys.executable, "-c", FORK, out], env, timeout=a.timeout)
            lines = o.splitlines()
            bad = [] if rc == 0 and "OK" in lines else ["exit %d, stdout %r" % (rc, o[-500:])]
            if any("WRONG" in l or l.split(" ", 1)[-1].startswith("error") for l in lines):
                bad.append("the child used stale data or failed unclearly: %r" % lines)
            child = [l for l in lines if l.split(" ")[0] in ("to_host", "total", "bump")]
            if len(child) != 3:
                bad.append("the child did not report: %r" % lines)
            if any(l == "to_host lost" for l in child):
                lost_seen = True
                if not all(l.endswith("lost") for l in child[:2]):
                    bad.append("lost data, but a call on it did not fail: %r" % child)
            if re.search(r"\bcyk_\d", e):
                bad.append("a kernel's internal name in stderr: %s" % e[-500:])
            record(not bad, "fork in cyocl.resident, clEnqueueReadBuffer:%d" % k,
                   "\n".join(bad) + "\nstderr:\n" + e[-1500:])
        record(lost_seen, "fork: some K loses the device's data in the child (the lost path is tested)")

    if a.valgrind:
        vg = shutil.which("valgrind")
        if not vg:
            record(False, "valgrind", "valgrind is not installed")
        else:
            log = os.path.join(a.work, "valgrind.log")
            prefix = (vg, "--leak-check=full", "--errors-for-leak-kinds=definite",
                      "--show-leak-kinds=definite", "--log-file=" + log)
            rc, o, e, trace, env = R.once("valgrind", fault="clEnqueueNDRangeKernel:2",
                                          prefix=prefix)
            text = open(log).read() if os.path.exists(log) else ""
            # definite leaks whose stack passes through cyocl's code
            ours = [b for b in text.split("\n==") if "definitely lost" in b and
                    re.search(r"cyrt_|cyocl|faulty\.", b)]
            bad = R.judge("valgrind", False, rc, o, e, trace)
            bad = [b for b in bad if not b.startswith("unexpected stderr")]
            if ours:
                bad.append("definite leaks in cyocl's code:\n" + "\n".join(ours[:5]))
            record(not bad, "valgrind (clEnqueueNDRangeKernel:2)", "\n".join(bad))

    passed = sum(results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
