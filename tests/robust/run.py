#!/usr/bin/env python3
"""Robustness tests of the OpenCL path (project issue 3, DESIGN §1, §4):

  two_modules  mod_a.pyx and mod_b.pyx, built into one directory, take
               turns on one numpy array (whole, overlapping slices, strided
               views, one reading what the other writes); after every call
               the array (and the reductions) equal numpy's.  Under
               CYOCL_FORCE=opencl (every region must run on OpenCL) and
               CYOCL_FORCE=native.
  ldd          `cyocl build --no-opencl`: no OpenCL library in ldd, no
               OpenCL NEEDED entry, no undefined cl* symbol, no cyocl
               runtime module beside it; it imports (without importing
               cyocl) and computes.
  empty_icd    a default build with OCL_ICD_VENDORS at an empty directory
               (the loader finds no platform): imports and computes
               correctly, forced to OpenCL or not; forced, exactly one
               warning naming the first region, else none; every region
               traced native.
  no_opencl    OpenCL forced (CYOCL_FORCE=opencl) but not to be had: no
               ICD loader (CYOCL_OPENCL_LIBRARY=/nonexistent), no device of
               the allowed type (CYOCL_DEVICE_TYPE), and CYOCL_DEVICE /
               CYOCL_DEVICE_TYPE values that select nothing: exactly one
               RuntimeWarning, naming mod_a.pyx, the line and the function
               of the first region (never a kernel's name cyk_N), and the
               right results.
  fork_pool    a multiprocessing fork Pool(4) after the parent used OpenCL
               (ran regions, or only cyocl.devices()), and after it ran
               native regions (GNU OpenMP's thread pool does not survive
               fork either): results equal numpy's, no hang.
  fork_resident  os.fork() inside `with cyocl.resident(a):` after a device
               write: the child reads the data the device wrote, calls the
               module's functions, and exits (os._exit, and a normal
               interpreter exit); no hang.
  threads      8 Python threads call mod_a.add_one on overlapping slices
               of one array (the region runs without the GIL), under
               CYOCL_FORCE=opencl: the final counts are exact only if the
               calls on overlapping regions wait for each other (§4.7).
               Three processes.
  build_threads  two modules, many Python threads: while one thread's
               first call of `big` builds its OpenCL program, 4 threads
               keep calling mod_a on OpenCL.  The build takes 3 s on any
               driver: the loader is tests/fault/clshim.c (--shim) with
               CYOCL_SHIM_BUILD_DELAY_MS=3000 (no kernel cache).  No mod_a
               call that overlapped the build may take half as long as the
               build did (one that waited for it would), and some must
               finish inside it.  (The driver's own compile may still hold
               its device: PoCL runs no command while it compiles.)
  resident_threads  12 Python threads with OMP_NUM_THREADS=16 (above the
               core count), each inside its own cyocl.resident() over its
               own array and a shared one it only reads, calling mod_a's
               regions and reading results on the host between calls;
               forced to OpenCL and automatic: exact results, no hang.

The parts that need an OpenCL device are skipped when `cyocl devices`
exits non-zero; the run then exits 77 (CTest: skipped) if the rest passed.
Usage: run.py [--cyocl PATH] [--work DIR] [-k NAME] [-x NAME]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, textwrap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import run, trace_regions  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WARN_RE = re.compile(r"RuntimeWarning: cyocl|^cyocl: warning:", re.M)

TWO_MODULES = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, sys.argv[1])
    import mod_a, mod_b
    def check(what, a, ref):
        if not np.array_equal(a, ref):
            bad = np.nonzero(a != ref)[0]
            raise SystemExit("WRONG after %s: %d elements differ, first %s: %r != %r"
                             % (what, len(bad), bad[:5], a[bad[:5]], ref[bad[:5]]))
    n = 100003
    a = (np.arange(n, dtype=np.int64) % 1000) - 300
    ref = a.copy()
    steps = [
        ("A whole", lambda x: mod_a.twice_plus(x), lambda r: r.__setitem__(slice(None), r * 2 + 1)),
        ("B whole", lambda x: mod_b.minus3(x), lambda r: r.__setitem__(slice(None), r - 3)),
        ("A [100:70000]", lambda x: mod_a.twice_plus(x[100:70000]),
         lambda r: r.__setitem__(slice(100, 70000), r[100:70000] * 2 + 1)),
        ("B [50000:]", lambda x: mod_b.minus3(x[50000:]),
         lambda r: r.__setitem__(slice(50000, None), r[50000:] - 3)),
        ("A [::3]", lambda x: mod_a.twice_plus(x[::3]),
         lambda r: r.__setitem__(slice(None, None, 3), r[::3] * 2 + 1)),
        ("B [1::2]", lambda x: mod_b.minus3(x[1::2]),
         lambda r: r.__setitem__(slice(1, None, 2), r[1::2] - 3)),
        ("B [::-1]", lambda x: mod_b.minus3(x[::-1]), lambda r: r.__setitem__(slice(None), r - 3)),
        ("A [30000:30001]", lambda x: mod_a.twice_plus(x[30000:30001]),
         lambda r: r.__setitem__(slice(30000, 30001), r[30000:30001] * 2 + 1)),
    ]
    for rnd in range(3):
        for k, (what, f, g) in enumerate(steps):
            f(a)
            g(ref)
            check("round %d step %s" % (rnd, what), a, ref)
            # the other module reads what this one just wrote
            sa, sb = mod_a.total_a(a[k:]), mod_b.total_b(a[:n - k])
            if sa != int(ref[k:].sum()) or sb != 2 * int(ref[:n - k].sum()):
                raise SystemExit("WRONG reductions after %s: %d %d" % (what, sa, sb))
        # keep the values small: one half of the array from the other (two
        # views of one array, disjoint: overlapping ones would race in any prange)
        mod_b.halve_into(a[n - n // 2:], a[:n // 2])
        ref[:n // 2] = ref[n - n // 2:] // 2
        check("round %d halve_into (two halves)" % rnd, a, ref)
        np.clip(a, -10**6, 10**6, out=a)  # numpy writes between the calls
        np.clip(ref, -10**6, 10**6, out=ref)
    print("OK")
""")

COMPUTE = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, sys.argv[1])
    import mod_a
    a = (np.arange(10007, dtype=np.int64) % 500) - 100
    ref = a * 2 + 1
    mod_a.twice_plus(a)
    assert np.array_equal(a, ref), "twice_plus"
    assert mod_a.total_a(a) == int(ref.sum()), "total_a"
    mod_a.add_one(a[::2])
    ref[::2] += 1
    assert np.array_equal(a, ref), "add_one"
    print("OK", "cyocl" in sys.modules)
""")

THREADS = textwrap.dedent("""
    import sys, threading, numpy as np
    sys.path.insert(0, sys.argv[1])
    import mod_a
    n, nthreads, reps = 200000, 8, 25
    a = np.zeros(n, dtype=np.int64)
    want = np.zeros(n, dtype=np.int64)
    ranges = []
    for t in range(nthreads):
        lo = (t * n) // (nthreads + 1)
        hi = min(n, lo + (3 * n) // (nthreads + 1))  # each overlaps the next two
        ranges.append((lo, hi))
        want[lo:hi] += reps
    # plus one thread on a strided view across all of them
    ranges.append((0, n, 7))
    want[::7] += reps
    start = threading.Barrier(len(ranges))
    errors = []
    def work(r):
        try:
            view = a[r[0]:r[1]:r[2]] if len(r) == 3 else a[r[0]:r[1]]
            start.wait()
            for _ in range(reps):
                mod_a.add_one(view)
        except BaseException as e:
            errors.append(repr(e))
    ts = [threading.Thread(target=work, args=(r,)) for r in ranges]
    for t in ts: t.start()
    for t in ts: t.join()
    if errors:
        raise SystemExit("thread failed: %s" % errors[:3])
    if not np.array_equal(a, want):
        bad = np.nonzero(a != want)[0]
        raise SystemExit("RACE: %d elements wrong, first %s: %r != %r"
                         % (len(bad), bad[:5], a[bad[:5]], want[bad[:5]]))
    print("OK")
""")


BUILD_THREADS = textwrap.dedent("""
    import sys, threading, time, numpy as np
    sys.path.insert(0, sys.argv[1])
    import mod_a, big
    # mod_a's program is built before the race starts
    w = np.zeros(64, dtype=np.int64)
    mod_a.add_one(w)
    assert w[0] == 1
    done = threading.Event()
    window = []
    calls = [[] for _ in range(4)]
    def builder():
        a = np.ones(256)
        t0 = time.perf_counter()
        big.f0(a, 1.0)
        window.extend([t0, time.perf_counter()])
        done.set()
    def launcher(k):
        a = np.zeros(1000 + k, dtype=np.int64)
        n = 0
        while not done.is_set():
            t0 = time.perf_counter()
            mod_a.add_one(a)
            calls[k].append((t0, time.perf_counter()))
            n += 1
        assert int(a.min()) == n and int(a.max()) == n, "wrong counts"
    ts = [threading.Thread(target=launcher, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    time.sleep(0.05)
    b = threading.Thread(target=builder)
    b.start()
    b.join(timeout=240)
    done.set()
    for t in ts:
        t.join(timeout=60)
    if b.is_alive() or any(t.is_alive() for t in ts):
        print("HANG", flush=True)
        sys.exit(3)
    b0, b1 = window
    build = b1 - b0
    over = [e - s for c in calls for (s, e) in c if s < b1 and e > b0]
    inside = [1 for c in calls for (s, e) in c if s >= b0 and e <= b1]
    longest = max(((e - s, k, i) for k, c in enumerate(calls) for i, (s, e) in enumerate(c) if s < b1 and e > b0),
                  default=(-1, -1, -1))
    print("build %.3f s; mod_a calls overlapping it %d, inside it %d, longest %.3f s (thread %d, call %d)"
          % ((build, len(over), len(inside)) + longest), flush=True)
    if build < 0.5:
        sys.exit("the build took only %.3f s: too short to show anything" % build)
    if not over or max(over) >= 0.5 * build:
        sys.exit("a mod_a call waited for big's build (%.3f s of %.3f s)" % (max(over) if over else -1, build))
    if len(inside) < 5:
        sys.exit("only %d mod_a calls finished during big's build" % len(inside))
    print("OK", flush=True)
""")

RESIDENT_THREADS = textwrap.dedent("""
    import sys, threading, numpy as np
    sys.path.insert(0, sys.argv[1])
    import mod_a, cyocl
    shared = (np.arange(30011, dtype=np.int64) % 101) - 50
    want_shared = int(shared.sum())
    errors = []
    def work(k):
        try:
            a = (np.arange(20000 + 17 * k, dtype=np.int64) % 7) + k
            ref = a.copy()
            with cyocl.resident(a, shared):
                for r in range(25):
                    mod_a.add_one(a)
                    ref += 1
                    if r % 3 == 0:
                        mod_a.twice_plus(a[k::3])
                        ref[k::3] = ref[k::3] * 2 + 1
                    if r % 5 == 0:
                        cyocl.to_host(a)  # Python reads it: inside resident() it asks first
                        if not np.array_equal(a, ref):
                            errors.append("thread %d round %d: host sees stale data" % (k, r))
                            return
                    if mod_a.total_a(shared) != want_shared:
                        errors.append("thread %d: the shared array's total changed" % k)
                        return
                    if mod_a.total_a(a) != int(ref.sum()):
                        errors.append("thread %d round %d: wrong total" % (k, r))
                        return
            if not np.array_equal(a, ref):
                errors.append("thread %d: wrong after the resident scope" % k)
        except Exception as e:  # noqa: BLE001
            errors.append("thread %d: %r" % (k, e))
    ts = [threading.Thread(target=work, args=(k,)) for k in range(12)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=240)
    if any(t.is_alive() for t in ts):
        print("HANG", flush=True)
        sys.exit(3)
    if errors:
        sys.exit("; ".join(errors[:10]))
    if int(shared.sum()) != want_shared:
        sys.exit("the shared array changed")
    print("OK", flush=True)
""")

FORK_POOL = textwrap.dedent("""
    import sys, os, multiprocessing as mp, numpy as np
    sys.path.insert(0, sys.argv[1])
    import mod_a
    what = sys.argv[2]
    if what != "no-opencl":
        import cyocl
    def work(k):
        b = (np.arange(20000 + k, dtype=np.int64) % 977) - k
        want = b * 2 + 1
        mod_a.twice_plus(b)
        ok = np.array_equal(b, want) and mod_a.total_a(b) == int(want.sum())
        return k, bool(ok)
    a = (np.arange(50000, dtype=np.int64) % 313) - 5
    if what == "devices":
        assert cyocl.devices(), "no device"
    else:
        want = a * 2 + 1
        mod_a.twice_plus(a)
        assert np.array_equal(a, want), "parent twice_plus"
    if what != "no-opencl":
        st = cyocl.stats()
        print("parent launches", st["launches"], "native", st["native_regions"], flush=True)
    pool = mp.get_context("fork").Pool(4)
    try:
        got = pool.map_async(work, range(12)).get(timeout=120)
    except mp.TimeoutError:
        print("HANG: the pool's workers did not finish in 120 s", flush=True)
        os._exit(3)
    pool.close()
    pool.join()
    bad = [k for k, ok in got if not ok]
    if bad:
        raise SystemExit("WRONG in workers %r" % bad)
    # the parent goes on using OpenCL after its children
    c = np.arange(1000, dtype=np.int64)
    mod_a.add_one(c)
    assert np.array_equal(c, np.arange(1000) + 1), "parent after the pool"
    print("OK", flush=True)
""")

FORK_RESIDENT = textwrap.dedent("""
    import sys, os, time, numpy as np
    sys.path.insert(0, sys.argv[1])
    import mod_a, cyocl
    def wait(pid, what):
        t0 = time.time()
        while time.time() - t0 < 120:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(st)
            time.sleep(0.05)
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise SystemExit("HANG: the child (%s) did not exit in 120 s" % what)
    n = 100003
    a = (np.arange(n, dtype=np.int64) % 1000) - 300
    want = a * 2 + 1
    with cyocl.resident(a):
        mod_a.twice_plus(a)
        # the device holds the only valid copy now (the host's is stale)
        print("host stale before the fork:", not np.array_equal(a, want), flush=True)
        for how in ("_exit", "exit"):
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    if not np.array_equal(a, want):
                        print("child: WRONG data after the fork", flush=True)
                        code = 1
                    mod_a.add_one(a)
                    if not np.array_equal(a, want + 1) or mod_a.total_a(a) != int((want + 1).sum()):
                        print("child: WRONG results of module calls", flush=True)
                        code = 1
                    b = np.arange(5000, dtype=np.int64)
                    with cyocl.resident(b):
                        mod_a.twice_plus(b)
                    if not np.array_equal(b, np.arange(5000) * 2 + 1):
                        print("child: WRONG in a resident block of its own", flush=True)
                        code = 1
                except BaseException as e:
                    print("child: %r" % e, flush=True)
                    code = 1
                if how == "_exit":
                    os._exit(code)
                sys.exit(code)  # a normal exit: atexit, library destructors
            rc = wait(pid, how)
            if rc != 0:
                raise SystemExit("the child (%s) exited %d" % (how, rc))
        # the parent's data is untouched by the children and still on the device
        mod_a.add_one(a)
    if not np.array_equal(a, want + 1):
        raise SystemExit("WRONG in the parent after the forks")
    print("OK", flush=True)
""")


class Tests:
    def __init__(self, a, have_device):
        self.a, self.have_device = a, have_device
        self.results, self.skipped = [], []

    def record(self, ok, label, detail=""):
        self.results.append(ok)
        print(("PASS " if ok else "FAIL ") + label, flush=True)
        if not ok and detail:
            print(textwrap.indent(detail.strip()[-3000:], "    "), flush=True)

    def skip(self, label):
        self.skipped.append(label)
        print("SKIP %s (no OpenCL device)" % label, flush=True)

    def build(self, variant, flags, names):
        out = os.path.join(self.a.work, variant)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for name in names:
            rc, o, e = run([self.a.cyocl, "build", *flags, "-o", out,
                            os.path.join(HERE, name + ".pyx")])
            if rc != 0:
                self.record(False, "build %s [%s]" % (name, variant), o + e)
                return None
        return out

    def env(self, tag, **extra):
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("CYOCL_") or k == "OCL_ICD_VENDORS":
                del env[k]
        trace = os.path.join(self.a.work, "trace-%s.jsonl" % tag)
        if os.path.exists(trace):
            os.remove(trace)
        env["CYOCL_TRACE"] = trace
        env["CYOCL_CACHE_DIR"] = os.path.join(self.a.work, "kcache")
        env.update({k: v for k, v in extra.items() if v is not None})
        return env, trace

    def py(self, script, moddir, env):
        return run([sys.executable, "-W", "always", "-c", script, moddir], env,
                   timeout=self.a.timeout)

    # ---- the tests ----------------------------------------------------------------
    def two_modules(self):
        out = self.build("default", [], ["mod_a", "mod_b"])
        if not out:
            return
        for force in ("opencl", "native"):
            label = "two_modules [CYOCL_FORCE=%s]" % force
            if force == "opencl" and not self.have_device:
                self.skip(label)
                continue
            env, trace = self.env("two-" + force, CYOCL_FORCE=force)
            rc, o, e = self.py(TWO_MODULES, out, env)
            bad = [] if rc == 0 and "OK" in o else ["exit %d\n%s%s" % (rc, o, e)]
            recs = trace_regions(trace)
            mods = {r.get("module") for r in recs}
            if mods != {"mod_a", "mod_b"}:
                bad.append("the trace names the modules %r, not mod_a and mod_b" % sorted(map(str, mods)))
            if any(r.get("impl") != force for r in recs):
                bad.append("regions ran as %r under CYOCL_FORCE=%s" %
                           sorted({"%s: %s" % (r.get("impl"), r.get("reason")) for r in recs}, force))
            if WARN_RE.search(e):
                bad.append("warnings: %s" % e[-1000:])
            self.record(not bad, label, "\n".join(bad))

    def ldd(self):
        out = self.build("no-opencl", ["--no-opencl"], ["mod_a"])
        if not out:
            return
        sos = [f for f in os.listdir(out) if f.endswith(".so")]
        mods = [f for f in sos if f.startswith("mod_a")]
        bad = []
        if len(mods) != 1:
            self.record(False, "ldd [--no-opencl]", "built %r" % sos)
            return
        so = os.path.join(out, mods[0])
        if any(f.startswith("cyocl") for f in sos):
            bad.append("--no-opencl put the cyocl runtime module beside it: %r" % sos)
        rc, o, e = run(["ldd", so])
        if rc != 0:
            bad.append("ldd failed: %s" % (o + e))
        elif "opencl" in (o + e).lower():
            bad.append("ldd shows OpenCL:\n" + o)
        rc, o, e = run(["readelf", "-d", so])
        needed = re.findall(r"\(NEEDED\).*\[(.*)\]", o)
        if rc != 0 or any("opencl" in n.lower() or n.startswith("libcyocl") for n in needed):
            bad.append("readelf -d: NEEDED %r (exit %d)" % (needed, rc))
        rc, o, e = run(["nm", "-D", "--undefined-only", so])
        cl = [l.split()[-1] for l in o.splitlines() if re.search(r"\bcl[A-Z]\w*$", l)]
        if rc != 0 or cl:
            bad.append("nm -D: undefined OpenCL symbols %r (exit %d)" % (cl, rc))
        # it imports and computes; nothing makes it load the runtime or a loader
        env, trace = self.env("noopencl", CYOCL_FORCE="opencl",
                              CYOCL_OPENCL_LIBRARY="/nonexistent/libOpenCL.so.1")
        rc, o, e = self.py(COMPUTE, out, env)
        if rc != 0 or "OK False" not in o:
            bad.append("run: exit %d, %s%s (want 'OK False': cyocl never imported)" % (rc, o, e))
        if any(r.get("impl") != "native" for r in trace_regions(trace)):
            bad.append("a region of a --no-opencl module ran on OpenCL")
        if WARN_RE.search(e):
            bad.append("warnings: %s" % e[-1000:])
        self.record(not bad, "ldd [--no-opencl]: no OpenCL dependency, runs", "\n".join(bad))

    def empty_icd(self):
        out = self.build("default", [], ["mod_a", "mod_b"]) if not os.path.isdir(
            os.path.join(self.a.work, "default")) else os.path.join(self.a.work, "default")
        if not out:
            return
        empty = os.path.join(self.a.work, "empty-vendors")
        shutil.rmtree(empty, ignore_errors=True)
        os.makedirs(empty)
        env, _ = self.env("icd-probe", OCL_ICD_VENDORS=empty)
        if run([self.a.cyocl, "devices"], env)[0] == 0:
            # the Khronos loader of some drivers reads no OCL_ICD_VENDORS: the
            # case cannot be made here (ocl-icd, as on the CI machine, can)
            print("note: this ICD loader ignores OCL_ICD_VENDORS; empty_icd skipped")
            self.skip("empty_icd")
            return
        for force in ("opencl", None, "native"):
            label = "empty_icd [OCL_ICD_VENDORS=<empty>%s]" % (
                ", CYOCL_FORCE=" + force if force else "")
            env, trace = self.env("icd-%s" % force, OCL_ICD_VENDORS=empty, CYOCL_FORCE=force)
            rc, o, e = self.py(COMPUTE, out, env)
            bad = [] if rc == 0 and o.startswith("OK") else ["exit %d\n%s%s" % (rc, o, e)]
            warns = WARN_RE.findall(e)
            # asked for OpenCL and not getting it: exactly one warning that
            # says why and where; otherwise none
            if len(warns) != (1 if force == "opencl" else 0):
                bad.append("%d warnings:\n%s" % (len(warns), e))
            where = "mod_a.pyx:%d in twice_plus()" % self.first_line("mod_a", "twice_plus")
            if force == "opencl" and ("found no platform" not in e or where not in e):
                bad.append("the warning does not say 'found no platform' and %r:\n%s" % (where, e))
            other = [l for l in e.splitlines() if l.strip() and not WARN_RE.search(l)
                     and not l.startswith("  ")]
            if other:
                bad.append("unexpected stderr: %r" % other[:5])
            recs = trace_regions(trace)
            if not recs:
                bad.append("no region in the trace")
            if any(r.get("impl") != "native" for r in recs):
                bad.append("a region ran on OpenCL without a platform: %r" % recs[:2])
            if force == "opencl" and not all(str(r.get("reason", "")).startswith("fallback:")
                                             for r in recs):
                bad.append("forced to OpenCL without a platform, reasons %r" %
                           sorted({str(r.get("reason")) for r in recs}))
            self.record(not bad, label, "\n".join(bad))
        # and `cyocl devices` says there is nothing (exit non-zero, no crash)
        env, _ = self.env("icd-devices", OCL_ICD_VENDORS=empty)
        rc, o, e = run([self.a.cyocl, "devices"], env)
        self.record(rc not in (0,) and rc > 0, "empty_icd [cyocl devices exits non-zero, no crash]",
                    "exit %d\n%s%s" % (rc, o, e))

    def first_line(self, name, func):
        """The line of the first prange in func of NAME.pyx."""
        with open(os.path.join(HERE, name + ".pyx")) as f:
            inside = False
            for i, line in enumerate(f, 1):
                if line.startswith("def "):
                    inside = line.startswith("def %s(" % func)
                elif inside and "prange(" in line:
                    return i
        return 0

    def one_warning(self, label, env, trace, must, impl):
        """Runs COMPUTE: right results, exactly one warning that contains
        every string in must and names the first region, regions run as
        impl (native: with a fallback reason)."""
        rc, o, e = self.py(COMPUTE, os.path.join(self.a.work, "default"), env)
        bad = [] if rc == 0 and o.startswith("OK") else ["exit %d\n%s%s" % (rc, o, e)]
        warns = WARN_RE.findall(e)
        where = "mod_a.pyx:%d in twice_plus()" % self.first_line("mod_a", "twice_plus")
        if len(warns) != 1:
            bad.append("%d warnings, not one:\n%s" % (len(warns), e))
        text = " ".join(l for l in e.splitlines() if WARN_RE.search(l))
        for m in must + [where]:
            if m not in text:
                bad.append("the warning does not say %r: %s" % (m, text))
        if re.search(r"\bcyk_\d", e):
            bad.append("a kernel's internal name in stderr: %s" % e)
        other = [l for l in e.splitlines() if l.strip() and not WARN_RE.search(l)
                 and not l.startswith("  ")]
        if other:
            bad.append("unexpected stderr: %r" % other[:5])
        recs = trace_regions(trace)
        if not recs or any(r.get("impl") != impl for r in recs):
            bad.append("regions ran as %r, not all %s" % (
                sorted({"%s: %s" % (r.get("impl"), r.get("reason")) for r in recs}), impl))
        if impl == "native" and not all(str(r.get("reason", "")).startswith("fallback:") for r in recs):
            bad.append("reasons %r" % sorted({str(r.get("reason")) for r in recs}))
        self.record(not bad, label, "\n".join(bad))

    def no_opencl(self):
        out = os.path.join(self.a.work, "default")
        if not os.path.isdir(out) and not self.build("default", [], ["mod_a", "mod_b"]):
            return
        env, trace = self.env("noloader", CYOCL_FORCE="opencl",
                              CYOCL_OPENCL_LIBRARY="/nonexistent/libOpenCL.so.1")
        self.one_warning("no_opencl [CYOCL_OPENCL_LIBRARY=/nonexistent, CYOCL_FORCE=opencl]: one warning",
                         env, trace, ["CYOCL_FORCE=opencl but no OpenCL ICD loader", "running natively"],
                         "native")
        if not self.have_device:
            self.skip("no_opencl [device selection]")
            return
        # a device type there is none of: gpu on PoCL, cpu where there are only GPUs
        for t in ("gpu", "cpu"):
            env, _ = self.env("type-probe", CYOCL_DEVICE_TYPE=t)
            if run([self.a.cyocl, "devices"], env)[0] != 0:
                env, trace = self.env("type-" + t, CYOCL_FORCE="opencl", CYOCL_DEVICE_TYPE=t)
                self.one_warning("no_opencl [CYOCL_DEVICE_TYPE=%s, none of them]: one warning" % t, env,
                                 trace, ["CYOCL_FORCE=opencl but no OpenCL device of type %s" % t,
                                         "CYOCL_DEVICE_TYPE=%s" % t, "running natively"], "native")
                break
        else:
            self.skip("no_opencl [CYOCL_DEVICE_TYPE naming no device: there are CPUs and GPUs]")
        # values that select nothing: the default device runs the regions, one warning says so
        env, trace = self.env("device-none", CYOCL_FORCE="opencl", CYOCL_DEVICE="no-such-device")
        self.one_warning("no_opencl [CYOCL_DEVICE=no-such-device]: one warning, default device", env, trace,
                         ["CYOCL_DEVICE='no-such-device' names no usable device"], "opencl")
        env, trace = self.env("device-99", CYOCL_FORCE="opencl", CYOCL_DEVICE="99")
        self.one_warning("no_opencl [CYOCL_DEVICE=99]: one warning, default device", env, trace,
                         ["CYOCL_DEVICE=99: there is no device 99"], "opencl")
        env, trace = self.env("type-bogus", CYOCL_FORCE="opencl", CYOCL_DEVICE_TYPE="bogus")
        self.one_warning("no_opencl [CYOCL_DEVICE_TYPE=bogus]: one warning, default device", env, trace,
                         ["CYOCL_DEVICE_TYPE='bogus' is not one of cpu, gpu, all"], "opencl")

    def fork_pool(self):
        out = os.path.join(self.a.work, "default")
        if not os.path.isdir(out) and not self.build("default", [], ["mod_a", "mod_b"]):
            return
        # a module without the runtime: GNU OpenMP's pool must not hang the
        # workers after the parent's native regions (prelude.h's fork handler)
        plain = os.path.join(self.a.work, "no-opencl-fork")
        if not os.path.isdir(plain) and not self.build("no-opencl-fork", ["--no-opencl"], ["mod_a"]):
            return
        for force, what in (("opencl", "regions"), ("opencl", "devices"), ("native", "regions"), (None, "regions"),
                            (None, "no-opencl")):
            label = "fork_pool [Pool(4) after %s, CYOCL_FORCE=%s]" % (
                "cyocl.devices()" if what == "devices" else "regions of a --no-opencl module" if what == "no-opencl"
                else "regions", force)
            if (force == "opencl" or what == "devices") and not self.have_device:
                self.skip(label)
                continue
            env, trace = self.env("fork-pool-%s-%s" % (force, what), CYOCL_FORCE=force)
            rc, o, e = run([sys.executable, "-c", FORK_POOL, plain if what == "no-opencl" else out, what], env,
                           timeout=240)
            bad = [] if rc == 0 and "OK" in o else ["exit %d\n%s%s" % (rc, o, e)]
            if force == "opencl" and what == "regions" and "parent launches 0" in o:
                bad.append("the parent did not run on OpenCL: %s" % o)
            if re.search(r"\bcyk_\d", e):
                bad.append("a kernel's internal name in stderr: %s" % e[-1000:])
            # a worker may say once that it runs natively; nothing else
            other = [l for l in e.splitlines() if l.strip() and not WARN_RE.search(l)
                     and not l.startswith("  ")]
            if other:
                bad.append("unexpected stderr: %r" % other[:5])
            if force != "opencl" and WARN_RE.search(e):
                bad.append("warnings without OpenCL asked for: %s" % e[-1000:])
            self.record(not bad, label, "\n".join(bad))

    def fork_resident(self):
        if not self.have_device:
            self.skip("fork_resident")
            return
        out = os.path.join(self.a.work, "default")
        if not os.path.isdir(out) and not self.build("default", [], ["mod_a", "mod_b"]):
            return
        env, trace = self.env("fork-resident", CYOCL_FORCE="opencl")
        rc, o, e = run([sys.executable, "-c", FORK_RESIDENT, out], env, timeout=300)
        bad = [] if rc == 0 and "OK" in o else ["exit %d\n%s%s" % (rc, o, e)]
        if "host stale before the fork: True" not in o:
            print("note: the host copy was not stale before the fork; the test shows less", flush=True)
        if any(r.get("impl") != "opencl" for r in trace_regions(trace)
               if r.get("function") == "twice_plus" and r.get("n") == 100003):
            bad.append("the parent's region did not run on OpenCL")
        self.record(not bad, "fork_resident [os.fork() in cyocl.resident after a device write]",
                    "\n".join(bad))

    def threads(self):
        if not self.have_device:
            self.skip("threads")
            return
        out = os.path.join(self.a.work, "default")
        if not os.path.isdir(out):
            out = self.build("default", [], ["mod_a", "mod_b"])
            if not out:
                return
        for i in range(3):
            env, trace = self.env("threads-%d" % i, CYOCL_FORCE="opencl")
            rc, o, e = self.py(THREADS, out, env)
            bad = [] if rc == 0 and "OK" in o else ["exit %d\n%s%s" % (rc, o, e)]
            recs = trace_regions(trace)
            if any(r.get("impl") != "opencl" for r in recs) or not recs:
                bad.append("not every call ran on OpenCL: %r" %
                           sorted({"%s: %s" % (r.get("impl"), r.get("reason")) for r in recs}))
            if WARN_RE.search(e):
                bad.append("warnings: %s" % e[-1000:])
            self.record(not bad, "threads [9 threads, overlapping slices, run %d]" % (i + 1),
                        "\n".join(bad))

    def build_threads(self):
        if not self.have_device:
            self.skip("build_threads")
            return
        if not self.a.shim:
            print("SKIP build_threads (no --shim)", flush=True)
            self.skipped.append("build_threads")
            return
        src = os.path.join(self.a.work, "big.pyx")
        with open(src, "w") as f:
            f.write("# generated by run.py (build_threads): its program's build is made slow by the shim\n"
                    "from cython.parallel import prange\n\n"
                    "def f0(double[:] a, double s):\n"
                    "    cdef Py_ssize_t i\n"
                    "    for i in prange(a.shape[0], nogil=True):\n"
                    "        a[i] = a[i] * s + 1.0\n")
        out = os.path.join(self.a.work, "build_threads")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for path, flags in ((os.path.join(HERE, "mod_a.pyx"), []), (src, ["-O", "0"])):
            rc, o, e = run([self.a.cyocl, "build", *flags, "-o", out, path])
            if rc != 0:
                self.record(False, "build %s [build_threads]" % path, o + e)
                return
        env, trace = self.env("build-threads", CYOCL_FORCE="opencl", CYOCL_CACHE="0",
                              CYOCL_OPENCL_LIBRARY=self.a.shim, CYOCL_SHIM_BUILD_DELAY_MS="3000")
        rc, o, e = self.py(BUILD_THREADS, out, env)
        bad = [] if rc == 0 and "OK" in o else ["exit %d\n%s%s" % (rc, o, e)]
        recs = trace_regions(trace)
        if any(r.get("impl") != "opencl" for r in recs) or not recs:
            bad.append("not every call ran on OpenCL: %r" %
                       sorted({"%s: %s" % (r.get("impl"), r.get("reason")) for r in recs}))
        if not any(r.get("module") == "big" and r.get("build") == "compiled" for r in recs):
            bad.append("big's program was not compiled in the run")
        detail = "\n".join(bad) or o.strip()
        self.record(not bad, "build_threads [no launch of mod_a waits for big's build]", detail)
        if not bad:
            print("    " + o.strip().splitlines()[0], flush=True)

    def resident_threads(self):
        if not self.have_device:
            self.skip("resident_threads")
            return
        out = os.path.join(self.a.work, "default")
        if not os.path.isdir(out):
            out = self.build("default", [], ["mod_a", "mod_b"])
            if not out:
                return
        for force in ("opencl", None):
            env, trace = self.env("resident-threads-%s" % force, CYOCL_FORCE=force, OMP_NUM_THREADS="16")
            rc, o, e = self.py(RESIDENT_THREADS, out, env)
            bad = [] if rc == 0 and "OK" in o else ["exit %d\n%s%s" % (rc, o, e)]
            recs = trace_regions(trace)
            if force and (any(r.get("impl") != "opencl" for r in recs) or not recs):
                bad.append("not every call ran on OpenCL: %r" %
                           sorted({"%s: %s" % (r.get("impl"), r.get("reason")) for r in recs}))
            if WARN_RE.search(e):
                bad.append("warnings: %s" % e[-1000:])
            self.record(not bad, "resident_threads [12 threads, OMP_NUM_THREADS=16, CYOCL_FORCE=%s]"
                        % (force or "unset"), "\n".join(bad))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--work")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--shim", help="tests/fault/clshim.c built (build_threads)")
    ap.add_argument("-k", default="", help="only the tests whose name contains this")
    ap.add_argument("-x", default="", help="not the tests whose name contains this")
    a = ap.parse_args()
    a.work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="cyocl-robust-"))
    os.makedirs(a.work, exist_ok=True)
    shutil.rmtree(os.path.join(a.work, "default"), ignore_errors=True)
    rc, o, e = run([a.cyocl, "devices"])
    t = Tests(a, rc == 0)
    if rc != 0:
        print("note: `cyocl devices` exited %d: the OpenCL parts are skipped" % rc)
    for name in ("two_modules", "ldd", "empty_icd", "no_opencl", "fork_pool", "fork_resident", "threads",
                 "build_threads", "resident_threads"):
        if a.k in name and not (a.x and a.x in name):
            getattr(t, name)()
    passed = sum(t.results)
    failed = len(t.results) - passed
    print("%d passed, %d failed, %d skipped" % (passed, failed, len(t.skipped)))
    if failed or not t.results:
        return 1
    return 77 if t.skipped else 0


if __name__ == "__main__":
    sys.exit(main())
