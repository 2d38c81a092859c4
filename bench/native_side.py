#!/usr/bin/env python3
"""cyocl's native code beside Cython 3 + OpenMP on the same .pyx, every
kernel of bench/kernels.py at its smallest and large sizes (issue 16: a
native call within 1.05x of Cython's at 10^2 elements, native code within
1.02x at the largest sizes), for one or more cyocl builds side by side
(before/after a change) in one run.

    python3 bench/native_side.py [--cyocl [NAME=]PATH[,FLAG...] ...] [--kernels triad,...]
                                 [--sizes small|large|all] [--rounds 7] [--batch-ms 20] [--solo]

    e.g. --cyocl before=../main/build/cyocl --cyocl after=build/cyocl --cyocl bare=build/cyocl,--no-opencl

Each cyocl build is a default build (OpenCL included, unless FLAGs say
otherwise) run with CYOCL_FORCE=native, as bench/run.py's `native` column.  Every cyocl build is
timed in processes of its own (the runtime module `cyocl` is one per
process), each beside its own import of the Cython module on the very same
arrays (where an array lands in memory changes a kernel's speed by several
percent): batches of calls alternate between the two, and a process reports
the median over --rounds batches of each.  The processes of the builds
alternate over --procs rounds; the figure is the median of their ratios.
Every point first checks that cyocl's output equals Cython's bit for bit
(`same`, a letter per build; a floating-point reduction such as dot differs
where the threads' partial results were combined in another order: GCC
combines them as the threads arrive, in both modules).
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kernels as K  # noqa: E402
from native_vs_cython import ROOT, load  # noqa: E402
from run import CASES, build_cython  # noqa: E402   (the bench's own Cython build: the same flags)

SMALL = {k.name: 100 for k in K.KERNELS}
LARGE = {"triad": [10**6, 10**7], "dot": [10**7], "stencil": [1000**2, 4096**2], "jacobi": [316**2, 1000**2],
         "matmul": [316**2, 512**2], "matmul_f32": [316**2, 512**2], "mandelbrot": [1000**2, 2048**2],
         "sigmoid": [512**2], "mlp": [316**2]}


def points(spec, names):
    out = []
    for k in K.select(names):
        sizes = []
        if spec in ("small", "all"):
            sizes.append(SMALL[k.name])
        if spec in ("large", "all"):
            sizes += LARGE[k.name]
        out += [(k, s) for s in sizes]
    return out


def child(a):
    import numpy as np
    cy_dir, oc_dir = a.child
    res = []
    mods = {}
    # --which cython|cyocl: one module alone in the process, as bench/run.py
    # times them (each implementation in processes of its own)
    use_c, use_o = a.which in ("both", "cython"), a.which in ("both", "cyocl")
    for k, size in points(a.sizes, a.kernels):
        if k.case not in mods:
            mods[k.case] = (load(cy_dir, k.case) if use_c else None, load(oc_dir, k.case) if use_o else None)
        mc, mo = mods[k.case]
        seed = zlib.crc32(("%s/%d" % (k.case, size)).encode())
        mk = lambda: k.make(size, np.random.default_rng(seed), True)  # noqa: E731
        same = True
        if use_c and use_o:
            # bit for bit: one call each on equal fresh inputs
            dc, do = mk(), mk()
            rc, ro = k.result(dc, k.compiled(mc, dc)), k.result(do, k.compiled(mo, do))
            same = np.asarray(rc).tobytes() == np.asarray(ro).tobytes()
        d = mk()
        fs = [(lambda m=m: k.compiled(m, d), []) for m in (mc, mo) if m is not None]
        for f, _ in fs:
            f()
        t0 = time.perf_counter(); fs[0][0](); one = time.perf_counter() - t0
        calls = max(1, min(20000, int(a.batch_ms * 1e-3 / max(one, 1e-7))))
        for _ in range(a.rounds):
            for f, ts in fs:
                t0 = time.perf_counter()
                for _ in range(calls):
                    f()
                ts.append((time.perf_counter() - t0) / calls)
        med = [statistics.median(ts) for _, ts in fs]
        r = {"kernel": k.name, "size": k.shape_str(size), "same": same}
        if use_c:
            r["cython"] = med[0]
        if use_o:
            r["cyocl"] = med[-1]
        res.append(r)
    print(json.dumps(res))


def fmt_t(s):
    return "%.1f us" % (s * 1e6) if s < 1e-3 else "%.2f ms" % (s * 1e3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", action="append", default=None,
                    help="[NAME=]PATH[,FLAG...] of a cyocl binary and its build flags (repeatable)")
    ap.add_argument("--kernels", default="all")
    ap.add_argument("--sizes", default="all", choices=["small", "large", "all"])
    ap.add_argument("--rounds", type=int, default=7, help="batches per implementation in a process")
    ap.add_argument("--procs", type=int, default=3, help="processes per cyocl build")
    ap.add_argument("--batch-ms", type=float, default=20.0)
    ap.add_argument("--work", default=None, help="build directory (kept; default: a temporary one)")
    ap.add_argument("--build-only", action="store_true", help="build the modules under --work and stop")
    ap.add_argument("--solo", action="store_true",
                    help="also time each module alone in a process of its own (as bench/run.py does)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--which", default="both", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(a)
    builds = []
    flags, auto = {}, set()
    for spec in a.cyocl or [os.path.join(ROOT, "build", "cyocl")]:
        name, _, path = spec.rpartition("=")
        path, *fl = path.split(",")
        name = name or "cyocl%d" % len(builds)
        builds.append((name, os.path.abspath(path)))
        flags[name] = [f for f in fl if f != "@auto"]
        if "@auto" in fl:
            auto.add(name)
    work = a.work or tempfile.mkdtemp(prefix="cyocl-native-side-")
    cases = sorted({k.case for k, _ in points(a.sizes, a.kernels)})
    cy_dir = os.path.join(work, "cython")
    build_cython(cases, cy_dir)
    dirs = {}
    for name, path in builds:
        d = dirs[name] = os.path.join(work, "cyocl-" + name)
        os.makedirs(d, exist_ok=True)
        env = dict(os.environ, CYOCL_PYTHON=sys.executable)
        import concurrent.futures as cf
        with cf.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
            for p in ex.map(lambda c: subprocess.run([path, "build"] + flags[name] + ["-o", d, os.path.join(CASES, c + ".pyx")],
                                                     env=env, capture_output=True, text=True), cases):
                if p.returncode:
                    raise SystemExit("cyocl build failed:\n" + p.stderr)
    if a.build_only:
        return
    def run_child(name, which):
        env = dict(os.environ, CYOCL_FORCE="native")
        if name in auto:   # the dispatcher free to choose, as users get it
            env.pop("CYOCL_FORCE")
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", cy_dir, dirs[name], "--which", which,
                            "--sizes", a.sizes, "--kernels", a.kernels, "--rounds", str(a.rounds),
                            "--batch-ms", str(a.batch_ms)], env=env, check=True, capture_output=True, text=True)
        return json.loads(p.stdout.strip().splitlines()[-1])
    runs = {name: [] for name, _ in builds}
    solo = {name: [] for name, _ in builds}
    solo_cy = []
    for _ in range(a.procs):
        for name, _ in builds:
            runs[name].append(run_child(name, "both"))
    if a.solo:
        solo_cy.append(run_child(builds[0][0], "cython"))
        for name, _ in builds:
            solo[name].append(run_child(name, "cyocl"))
    print("threads: OMP_NUM_THREADS=%s, cores=%d; cyocl forced native%s vs Cython 3 + OpenMP, time ratio "
          "(median over %d processes x %d batches)" % (os.environ.get("OMP_NUM_THREADS", "default"),
                                                       os.cpu_count(), " (%s: automatic)" % ", ".join(sorted(auto))
                                                       if auto else "", a.procs, a.rounds))
    head = "%-11s %-10s %10s" % ("kernel", "size", "cython")
    for name, _ in builds:
        head += " %10s %7s" % (name, "ratio")
    print(head + "  same (per build)")
    worst = {name: [0.0, 0.0] for name, _ in builds}
    npts = len(runs[builds[0][0]][0])
    for i in range(npts):
        first = runs[builds[0][0]][0][i]
        tcy = statistics.median([r[i]["cython"] for rs in runs.values() for r in rs])
        line = "%-11s %-10s %10s" % (first["kernel"], first["size"], fmt_t(tcy))
        same = ""
        small = first["size"] in ("100", "10x10")
        for name, _ in builds:
            rs = runs[name]
            ratio = statistics.median([r[i]["cyocl"] / r[i]["cython"] for r in rs])
            t = statistics.median([r[i]["cyocl"] for r in rs])
            same += "y" if all(r[i]["same"] for r in rs) else "n"
            worst[name][0 if small else 1] = max(worst[name][0 if small else 1], ratio)
            line += " %10s %7.3f" % (fmt_t(t), ratio)
        if a.solo:
            c = solo_cy[0][i]["cython"]
            line += "  solo: cython %s" % fmt_t(c)
            for name, _ in builds:
                line += ", %s %.3f" % (name, solo[name][0][i]["cyocl"] / c)
        print(line + "  " + same, flush=True)
    for name, _ in builds:
        print("%s: worst ratio at 10^2 %.3f (target <= 1.05), at large sizes %.3f (target <= 1.02)"
              % (name, worst[name][0], worst[name][1]))


if __name__ == "__main__":
    main()
