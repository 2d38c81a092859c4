"""One implementation of issue 16's benchmark in a process of its own (run by
bench/run.py, which sets the environment: CYOCL_FORCE, CYOCL_DEVICE,
CYOCL_CACHE_DIR are read by the runtime when it starts, so every
implementation gets a fresh process).

Per (kernel, size, mode), on fresh inputs: the first call's result is checked
against numpy's (kept in --refdir, computed beforehand by a --refs-only
process of their own, or else by the first
process that needs it); then --warmup more calls; then timed calls until
--rmax of them or --budget seconds (at least --rmin, or one second).  With --warmup 0 the
first call counts too (the automatic choice in a second process: from the
first call).  One JSON line per point on stdout.
"""
import argparse, json, os, statistics, sys, time, traceback, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import kernels as K  # noqa: E402


def seed(kernel, size):
    return zlib.crc32(("%s/%d" % (kernel.case, size)).encode())


def fresh(kernel, size, quick):
    return kernel.make(size, np.random.default_rng(seed(kernel, size)), quick)


def ref_for(kernel, size, quick, refdir):
    path = os.path.join(refdir, "%s_%d%s.npy" % (kernel.name, size, "_q" if quick else ""))
    if os.path.exists(path):
        return np.load(path)
    want = np.asarray(K.reference(kernel, fresh(kernel, size, quick)))
    os.makedirs(refdir, exist_ok=True)
    tmp = path + ".%d.tmp.npy" % os.getpid()
    np.save(tmp, want)
    os.replace(tmp, path)
    return want


class Host:
    """cyocl (any CYOCL_FORCE), Cython or numpy: arrays on the host."""

    def __init__(self, kind, moddir):
        self.kind = kind
        self.mods = {}
        self.cyocl = None
        if kind in ("cyocl", "cython"):
            sys.path.insert(0, moddir)
        if kind == "cyocl":
            import cyocl
            self.cyocl = cyocl

    def module(self, case):
        if case not in self.mods:
            self.mods[case] = __import__(case)
        return self.mods[case]

    def modes(self):
        return ["plain", "resident"] if self.kind == "cyocl" else ["plain"]

    def prepare(self, kernel, d, mode):
        if self.kind == "numpy":
            return (lambda: kernel.array_impl(np, d)), (lambda r: kernel.result(d, r)), None
        mod = self.module(kernel.case)
        call = lambda: kernel.compiled(mod, d)  # noqa: E731
        if mode == "plain":
            return call, (lambda r: kernel.result(d, r)), None
        arrays = [d[a] for a in kernel.arrays]
        scope = self.cyocl.resident(*arrays)
        finish = self.cyocl.finish

        def call():
            # a kernel that reports nothing may still run when the call
            # returns (a quiet launch): the time is the work's
            r = kernel.compiled(mod, d)
            finish()
            return r

        def fetch(r):
            self.cyocl.to_host(*arrays)   # the check reads them inside the scope
            return kernel.result(d, r)
        return call, fetch, scope

    def sides(self):
        if not self.cyocl:
            return None
        s = self.cyocl.stats()
        return s.get("calls_native", 0), s.get("calls_opencl", 0)


class CuPy:
    """CuPy: plain calls copy the inputs in and the outputs out (CuPy's own
    copy-in/copy-out); resident calls find everything on the GPU."""

    def __init__(self):
        import cupy
        self.cp = cupy
        cupy.cuda.Device().synchronize()

    def modes(self):
        return ["plain", "resident"]

    def sides(self):
        return None

    def prepare(self, kernel, d, mode):
        cp = self.cp
        sync = cp.cuda.Device().synchronize
        if mode == "resident":
            g = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in d.items()}
            sync()

            def call():
                r = kernel.array_impl(cp, g)
                sync()
                return r
            return call, (lambda r: cp.asnumpy(kernel.result(g, r)) if not isinstance(r, float)
                          else kernel.result(g, r)), None

        def call():
            g = {}
            for k, v in d.items():
                if isinstance(v, np.ndarray):
                    g[k] = cp.empty(v.shape, v.dtype) if k in kernel.outputs else cp.asarray(v)
                else:
                    g[k] = v
            r = kernel.array_impl(cp, g)
            if isinstance(r, float):   # a reduction: the value came back with float()
                return r
            for k in K.WRITTEN[kernel.name]:
                g[k].get(out=d[k])
            sync()
            return r
        return call, (lambda r: kernel.result(d, r)), None


def checked_call(call, fetch, kernel, ref, a, row):
    """One call, timed, its result compared with numpy's into row (status,
    err, first_s); returns its time."""
    t0 = time.perf_counter()
    r = call()
    dt = time.perf_counter() - t0
    got = fetch(r)
    if a.corrupt:   # bench/selftest.py: a wrong result must be reported
        got = np.asarray(got) + 1
    ok, err = kernel.check(got, ref)
    row.update(status="ok" if ok else "MISMATCH", err=err, first_s=dt)
    return dt


def run_point(impl, kernel, size, mode, a, ref):
    d = fresh(kernel, size, a.quick)
    call, fetch, scope = impl.prepare(kernel, d, mode)
    row = {"kernel": kernel.name, "size": size, "shape": kernel.shape_str(size), "mode": mode}
    if scope is not None:
        scope.__enter__()
    try:
        sides0 = impl.sides() if a.warmup == 0 else None
        first = checked_call(call, fetch, kernel, ref, a, row)
        times = [first] if a.warmup == 0 else []
        for _ in range(max(a.warmup - 1, 0)):
            call()
        if sides0 is None:
            sides0 = impl.sides()
        spent = sum(times)
        # at least --rmin calls, unless they are slow: a second of timed calls is enough
        while len(times) < a.rmax and (spent < a.budget or (len(times) < a.rmin and spent < 1.0)):
            t0 = time.perf_counter()
            call()
            dt = time.perf_counter() - t0
            times.append(dt)
            spent += dt
        sides1 = impl.sides()
        if sides0 and sides1:
            row["calls_native"] = sides1[0] - sides0[0]
            row["calls_opencl"] = sides1[1] - sides0[1]
    finally:
        if scope is not None:
            scope.__exit__(None, None, None)
    row.update(median_s=statistics.median(times), min_s=min(times), repeats=len(times))
    return row


def run_side_point(impl, kernel, size, mode, a, ref):
    """--side auto,native,opencl: the implementations in this one process,
    switched with cyocl.force(), on the same inputs (plain calls: the very
    same arrays, so that where their pages lie does not differ; resident:
    a copy each, in a scope of its own, so that one's residency is not
    another's).  The first mode is the dispatcher's: its first --warmup
    calls come first (with --warmup 0 its first call is timed); each other
    mode's first call is checked on fresh inputs (a kernel may update its
    inputs), then warms up.  Then --side-rounds rounds of one block of
    timed calls per mode (auto and native follow OpenCL equally often).  A block starts
    after a pause (the device's driver may still work for the last block)
    with untimed calls for --side-warm seconds (at least two): threads that
    slept in the pause wake there (on a 2-core VM the first team after
    30 ms idle took 4-7 ms for 5 us of work, whatever ran before).  One row
    per mode ("side": the mode)."""
    cy = impl.cyocl
    modes = a.side.split(",")
    base = fresh(kernel, size, a.quick)
    ds = {m: base if mode == "plain" or m == modes[0] else fresh(kernel, size, a.quick) for m in modes}
    preps = {m: impl.prepare(kernel, ds[m], mode) for m in modes}
    rows = {m: {"kernel": kernel.name, "size": size, "shape": kernel.shape_str(size), "mode": mode, "side": m}
            for m in modes}
    times = {m: [] for m in modes}
    calls = [0, 0]

    def count_since(s0):
        # auto's timed calls per side, from cyocl.stats() before and now
        s1 = impl.sides()
        calls[0] += s1[0] - s0[0]
        calls[1] += s1[1] - s0[1]

    def timed(call):
        t0 = time.perf_counter()
        call()
        return time.perf_counter() - t0

    def check(m, call, fetch):
        return checked_call(call, fetch, kernel, ref, a, rows[m])

    def block(m, nmin, nmax, budget):
        call = preps[m][0]
        cy.force(None if m == "auto" else m)
        k, warm = 0, 0.0
        # (one call where one takes ten times that: a 5 ms wake is nothing to it)
        while k == 0 or warm < a.side_warm or (k < 2 and warm < 10 * a.side_warm):
            warm += timed(call)
            k += 1
        s0 = impl.sides() if m == "auto" else None
        k, spent = 0, 0.0
        while k < nmax and (k < nmin or spent < budget):
            dt = timed(call)
            times[m].append(dt)
            k += 1
            spent += dt
        if s0 is not None:
            count_since(s0)

    entered = []
    try:
        for m in modes:
            if preps[m][2] is not None:
                preps[m][2].__enter__()
                entered.append(preps[m][2])
        # the warm-ups count as a block for the first pause: the forced
        # OpenCL check ran on arrays of its own, and the point's first
        # device calls make and free its buffers (H100, bench side: auto's
        # first block, 30 ms after them, ran its native calls at 2-3.6x
        # forced native's later blocks: triad 10^7 plain 7.7 against 2.6
        # ms, c03 stencil 4094x4094 11.9 against 3.3; its later blocks 1.0x)
        st_w = cy.stats()
        for m in modes:
            cy.force(None if m == "auto" else m)
            if m == modes[0]:
                s0 = impl.sides()
                dt = check(m, preps[m][0], preps[m][1])
                if a.warmup == 0:   # timed from the first call
                    times[m].append(dt)
                    count_since(s0)
                for _ in range(max(a.warmup - 1, 0)):
                    preps[m][0]()
                continue
            if mode == "plain":
                # checked on inputs of its own: the shared ones are the other modes' outputs by now
                call, fetch, _ = impl.prepare(kernel, fresh(kernel, size, a.quick), mode)
                check(m, call, fetch)
            else:
                check(m, preps[m][0], preps[m][1])
            preps[m][0]()
        nr = max(a.side_rounds, 1)
        st1 = cy.stats()
        moved = sum(st1.get(k, 0) - st_w.get(k, 0) for k in ("bytes_to_device", "bytes_to_host"))
        for rnd in range(nr):
            if len(modes) == 3:
                # auto, opencl, native / native, opencl, auto / ...: auto and
                # native each follow an OpenCL block (the driver's aftermath)
                # as often as the other, and themselves once (a rotation put
                # auto after OpenCL in every round)
                order = [modes[0], modes[2], modes[1]] if rnd % 2 == 0 else [modes[1], modes[2], modes[0]]
            else:
                order = modes[rnd % len(modes):] + modes[:rnd % len(modes)]
            for m in order:
                # longer after blocks that moved a lot: plain calls free their
                # device buffers, and the H100's driver keeps cores busy for
                # 100-250 ms after large frees (c02 dot 10^8 plain: forced
                # native 15 ms a call after native blocks, 20-30 ms after
                # blocks of forced OpenCL that moved 1.6 GB a call)
                time.sleep(max(a.side_pause, min(0.3, moved / 5e9)))
                st0 = cy.stats()
                left = nr - rnd
                # --rmin calls at least (more than two: a block's median is
                # not one call's) and --budget seconds, spread over the rounds left
                nmin = max(3 if nr <= 3 else 2, -(-(a.rmin - len(times[m])) // left))
                nmax = max(nmin, -(-(a.rmax - len(times[m])) // left))
                slow = times[m] and min(times[m]) > 0.1
                block(m, 1 if slow else nmin, nmax, max(a.budget - sum(times[m]), 0.0) / left)
                st1 = cy.stats()
                moved = sum(st1.get(k, 0) - st0.get(k, 0) for k in ("bytes_to_device", "bytes_to_host"))
    finally:
        cy.force(None)
        for sc in reversed(entered):
            sc.__exit__(None, None, None)
    out = []
    for m in modes:
        r = rows[m]
        r.update(median_s=statistics.median(times[m]), min_s=min(times[m]), repeats=len(times[m]))
        if m == modes[0]:
            r.update(calls_native=calls[0], calls_opencl=calls[1])
        out.append(r)
    return out


def sizes_for(kernel, a):
    if a.points:
        return [int(p.split(":")[1]) for p in a.points.split(",") if p.split(":")[0] == kernel.name]
    return [n for n in (kernel.sizes_quick if a.quick else kernel.sizes_full) if not a.max_size or n <= a.max_size]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", required=True, choices=["cyocl", "cython", "numpy", "cupy"])
    ap.add_argument("--moddir")
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--refdir", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--warmup", type=int, default=2, help="calls before timing, the checked call included")
    ap.add_argument("--rmin", type=int, default=3)
    ap.add_argument("--rmax", type=int, default=9)
    ap.add_argument("--budget", type=float, default=0.3, help="seconds of timed calls per point")
    ap.add_argument("--cap", type=float, default=3.0,
                    help="a size whose call is predicted (from the last size) to take longer is skipped")
    ap.add_argument("--max-size", type=int, default=0, help="only the sizes up to this many elements")
    ap.add_argument("--points", default="",
                    help="only these points, KERNEL:SIZE,... (sizes need not be in the kernel's own list; "
                         "bench/issue16.py)")
    ap.add_argument("--side", default="",
                    help="cyocl only: these modes side by side in this process (cyocl.force), the first the "
                         "dispatcher's: auto,native,opencl")
    ap.add_argument("--side-rounds", type=int, default=3, help="--side: rounds of one block per mode")
    ap.add_argument("--side-warm", type=float, default=0.005,
                    help="--side: seconds of untimed calls at the start of each block (at least two calls)")
    ap.add_argument("--side-pause", type=float, default=0.03,
                    help="--side: seconds before each block (the runtime counts the driver busy for 20 ms "
                         "after a device run)")
    ap.add_argument("--corrupt", action="store_true", help="add 1 to every result before the check (self-test)")
    ap.add_argument("--refs-only", action="store_true",
                    help="compute the missing references and exit (bench/run.py, before any timed process)")
    a = ap.parse_args()
    if a.refs_only:
        # in a process of their own: numpy's BLAS threads spin for a while
        # after a threaded call (np.dot of 10^5), and a team of every core
        # timed meanwhile waits a scheduler slice per call (CYOCL_FORCE=native
        # dot 10^5 on the H100: 12 ms a call for 12 us of work)
        for name in a.kernels.split(","):
            kernel = K.BY_NAME[name]
            for size in sizes_for(kernel, a):
                try:
                    ref_for(kernel, size, a.quick, a.refdir)
                except MemoryError:
                    pass   # the workers report it at that point
        return 0
    out = sys.stdout
    try:
        impl = CuPy() if a.kind == "cupy" else Host(a.kind, a.moddir)
    except Exception as e:  # e.g. CuPy without a GPU
        print(json.dumps({"unavailable": "%s: %s" % (type(e).__name__, e)}), flush=True)
        return 0
    for name in a.kernels.split(","):
        kernel = K.BY_NAME[name]
        sizes = sizes_for(kernel, a)
        for mode in impl.modes():
            slow = None   # (size, seconds per call) of the last size measured
            for size in sizes:
                # only from a size that is slow itself: on a loaded machine a tiny call can take
                # milliseconds, which must not stop the measurement of the larger sizes
                if slow is not None and slow[1] > a.cap / 4 and slow[1] * (size / slow[0]) ** kernel.cost_exp > a.cap:
                    row = {"kernel": kernel.name, "size": size, "shape": kernel.shape_str(size), "mode": mode,
                           "status": "skipped", "note": "predicted > %.1f s per call (%s took %.3g s)" % (
                               a.cap, kernel.shape_str(slow[0]), slow[1])}
                    print(json.dumps(row), flush=True)
                    continue
                try:
                    ref = ref_for(kernel, size, a.quick, a.refdir)
                    if a.side:
                        rows = run_side_point(impl, kernel, size, mode, a, ref)
                        for r in rows[1:]:
                            print(json.dumps(r), flush=True)
                        row = rows[0]
                    else:
                        row = run_point(impl, kernel, size, mode, a, ref)
                    slow = (size, row["min_s"])
                except MemoryError as e:
                    row = {"kernel": kernel.name, "size": size, "shape": kernel.shape_str(size), "mode": mode,
                           "status": "error", "note": "MemoryError %s" % e}
                    slow = (size, float("inf"))
                except Exception as e:
                    row = {"kernel": kernel.name, "size": size, "shape": kernel.shape_str(size), "mode": mode,
                           "status": "error", "note": "%s: %s" % (type(e).__name__, str(e)[:200])}
                    traceback.print_exc()
                print(json.dumps(row), flush=True)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
