#!/usr/bin/env python3
"""Issue 16's benchmark in one command: every kernel, size and implementation
in one run, each result checked against numpy (docs/benchmarks.md).

    python3 bench/run.py [--quick] [--out DIR] [--label TEXT] [--kernels c01,c04|triad,...]
                         [--impls auto,auto2,side,side2,native,opencl,opencl+fma,cython,numpy,clref,cupy] [--cyocl build/cyocl]
                         [--trace DIR] [--rounds N] [--side-rounds N]

Implementations (each in processes of its own, run one after the other; with
--rounds N, default 3 (1 with --quick), every implementation runs in N
processes, interleaved: round 1 runs each once, then round 2 in a rotated
order, ...; a point's time is the median of its processes' medians, and the
CSV gives their spread: a memory-bound time moves by up to 3x from one process
to the next, docs/benchmarks.md):
  auto       cyocl as users get it (the dispatcher), a new process with an
             empty calibration (a new one each round): timed from the third call of each point
  auto2      the same in a second process that finds the same round's auto's stored
             calibration and kernel cache: timed from the first call
  side       auto, forced native and forced OpenCL side by side in one process
             (cyocl.force() switches them): per point, auto's first two calls, the
             forced ones' two warm-up calls, then --side-rounds (default 6) rounds of one block
             of timed calls each (auto, opencl, native; native, opencl, auto; ...), a block after a pause (30 ms, up to
             300 ms after a block, or the warm-ups, that moved GBs) and 5 ms of untimed calls; plain calls share the very arrays; a new process with an
             empty calibration, as auto
  side2      the same in a second process that finds side's stored calibration: auto
             timed from the first call
  native     cyocl, CYOCL_FORCE=native
  opencl:K   cyocl, CYOCL_FORCE=opencl, CYOCL_DEVICE=K, for every device of `cyocl devices`
  opencl:K+fma  the same, built with `cyocl build --fp-contract` (a * b + c may be one
             fused multiply-add; each element's k-order stays the source's), for every GPU
             (`opencl+fma:K`: the devices K names) and the kernels of FMA_KERNELS only
  cython     Cython 3 + OpenMP on the same .pyx (-O3 -fopenmp)
  numpy      the same computation with numpy (the reference)
  cupy       the same with CuPy, where it imports and finds a GPU
  clref:P    ../shared/reference/clref.c (hand-written OpenCL) on platform P, for every
             device of `cyocl devices` (`clref:K`: the devices K names):
             its fixed-size figures, placed at the points they measure

Writes DIR/results.csv, DIR/results.md (ratios to the fastest), DIR/<kernel>.png.
"""
import argparse, csv, datetime, glob, json, math, os, platform, re, shutil, statistics, subprocess, sys
import tempfile, textwrap, time, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import kernels as K  # noqa: E402

SHARED = os.environ.get("CYOCL_SHARED") or os.path.abspath(os.path.join(ROOT, "..", "shared"))
CASES = os.path.join(SHARED, "conformance", "cases")
CLREF = os.path.join(SHARED, "reference", "clref.c")
ALL_IMPLS = ["auto", "auto2", "side", "side2", "native", "opencl", "opencl+fma", "cython", "numpy", "clref", "cupy"]
# the modes a side-by-side process runs (worker.py --side): the first is the dispatcher's
SIDE_MODES = ("auto", "native", "opencl")
# the kernels whose --fp-contract build is timed as a column of its own: the
# matrix products, where one fused multiply-add per update halves the
# arithmetic instructions (issue 17's matmul targets are past what separate
# multiplies and adds allow on an H100: docs/benchmarks.md)
FMA_KERNELS = ("matmul", "matmul_f32", "sigmoid", "mlp")
CYOCL_IMPLS = ("auto", "auto2", "native")


def say(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- builds

def build_cyocl(cyocl, cases, out, flags=()):
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, CYOCL_PYTHON=sys.executable)   # modules for this Python (a venv's)
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        for p in ex.map(lambda c: subprocess.run([cyocl, "build", *flags, "-o", out, os.path.join(CASES, c + ".pyx")],
                                                 capture_output=True, text=True, env=env), cases):
            if p.returncode:
                raise SystemExit("bench: cyocl build failed:\n" + p.stderr)


def build_cython(cases, out):
    os.makedirs(out, exist_ok=True)
    built = lambda c: [f for f in glob.glob(os.path.join(out, c + ".*.so"))  # noqa: E731
                       if os.path.getmtime(f) > os.path.getmtime(os.path.join(CASES, c + ".pyx"))]
    if all(built(c) for c in cases):
        return   # a --work directory of an earlier run: the same sources, already built
    for c in cases:
        shutil.copy(os.path.join(CASES, c + ".pyx"), out)
    setup = os.path.join(out, "setup_bench.py")
    with open(setup, "w") as f:
        f.write(textwrap.dedent(f"""
            from setuptools import setup, Extension
            from Cython.Build import cythonize
            import os
            setup(script_args=["build_ext", "--inplace", "-q", "-j", os.environ["CYOCL_BENCH_JOBS"]],
                  ext_modules=cythonize([Extension(n, [n + ".pyx"], extra_compile_args=["-O3", "-fopenmp", "-g0"],
                                                   extra_link_args=["-fopenmp"]) for n in {cases!r}],
                                        language_level=3, quiet=True,
                                        nthreads=int(os.environ["CYOCL_BENCH_JOBS"])))
        """))
    p = subprocess.run([sys.executable, setup], cwd=out, capture_output=True, text=True,
                       env=dict(os.environ, CYOCL_BENCH_JOBS=str(os.cpu_count() or 1)))
    if p.returncode and "No module named 'setuptools'" in p.stderr:
        # a Python 3.12 venv has no setuptools: the same flags, by hand
        import sysconfig
        inc, suffix = sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX")
        cc = os.environ.get("CC", "cc").split()
        for c in cases:
            subprocess.run([sys.executable, "-m", "cython", "-3", c + ".pyx", "-o", c + ".c"], cwd=out, check=True,
                           capture_output=True, text=True)
            subprocess.run(cc + ["-O3", "-fopenmp", "-fwrapv", "-fPIC", "-shared", "-I" + inc, c + ".c", "-o",
                                 c + suffix, "-lm"], cwd=out, check=True, capture_output=True, text=True)
        return
    if p.returncode:
        raise subprocess.CalledProcessError(p.returncode, p.args, p.stdout, p.stderr)


def devices(moddir, env):
    code = "import json, sys; sys.path.insert(0, sys.argv[1]); import cyocl; print(json.dumps(cyocl.devices()))"
    p = subprocess.run([sys.executable, "-c", code, moddir], env=env, capture_output=True, text=True)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return []


def short(name):
    s = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")
    return s[:24]


# ---------------------------------------------------------------- clref

def run_clref(work, dev, quick, timeout):
    """clref on the device's platform; its figures as rows at the points they measure."""
    exe = os.path.join(work, "clref")
    if not os.path.exists(exe):
        cc = os.environ.get("CC", "cc")
        p = subprocess.run([cc, "-O2", "-o", exe, CLREF, "-lOpenCL", "-lm"], capture_output=True, text=True)
        if p.returncode:   # an ICD loader without its development link (libOpenCL.so)
            p = subprocess.run([cc, "-O2", "-o", exe, CLREF, "-l:libOpenCL.so.1", "-lm"], capture_output=True,
                               text=True)
        if p.returncode:
            return None, "clref did not build: " + p.stderr.strip()[-300:]
    small = quick or dev["type"] != "gpu"   # full sizes on a CPU device take minutes
    env = dict(os.environ, REF_PLATFORM=dev["platform"])
    if small:
        env["REF_SMALL"] = "1"
    try:
        p = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "clref ran past %d s" % timeout
    if p.returncode:
        return None, "clref failed: " + (p.stderr or p.stdout).strip()[-300:]
    v = {}
    for line in p.stdout.splitlines():
        k, _, x = line.partition(":")
        v[k.strip()] = x.strip()
    note = "clref%s: fixed size, data on the device; result not returned, so unchecked" % (
        " REF_SMALL" if small else "")
    rows = []

    def row(kernel, size, mode, secs, extra=""):
        k = K.BY_NAME[kernel]
        if size not in (k.sizes_quick if quick else k.sizes_full):
            return   # a point no other implementation measures
        rows.append({"kernel": kernel, "size": size, "shape": k.shape_str(size), "mode": mode, "status": "unchecked",
                     "median_s": secs, "min_s": secs, "repeats": "", "note": note + extra})
    f = lambda key: float(v[key])  # noqa: E731
    try:
        row("triad", int(v["triad_n"]), "resident", f("triad_ms") / 1e3, " (mean of 20 launches)")
        m, sweeps = int(v["jacobi_m"]), int(v["jacobi_sweeps"])
        if sweeps == 2 * K.jacobi_steps(quick):
            row("jacobi", m * m, "resident", f("jacobi_ms") / 1e3)
        mn = int(v["mm_n"])
        row("matmul", mn * mn, "resident", f("mm_naive_ms") / 1e3, " (naive kernel, like c04)")
        row("sigmoid", mn * mn, "resident", f("sigmoid_layer_ms") / 1e3, " (16x16 tiled kernel)")
        row("sigmoid", mn * mn, "plain", f("sigmoid_layer_with_copies_ms") / 1e3,
            " (16x16 tiled; x, w in and out back, one run)")
    except (KeyError, ValueError) as e:
        return None, "clref output not understood (%s): %s" % (e, p.stdout[-300:])
    extra = {k: v[k] for k in ("launch_finish_us", "h2d_pageable_GBps", "d2h_pageable_GBps", "h2d_pinned_GBps",
                               "d2h_pinned_GBps", "triad_GBps", "mm_tiled_ms", "build_s") if k in v}
    extra["device"] = v.get("device", "")
    return (rows, extra), None


# ---------------------------------------------------------------- workers

def run_worker(name, kind, moddir, env, kernels, a, refdir, warmup, timeout, tag=""):
    args = [sys.executable, os.path.join(HERE, "worker.py"), "--kind", kind, "--kernels",
            ",".join(k.name for k in kernels), "--refdir", refdir, "--warmup", str(warmup)]
    if moddir:
        args += ["--moddir", moddir]
    args += ["--rmin", "3", "--rmax", "51", "--budget", str(a.budget), "--cap", str(a.cap)]
    if a.max_size:
        args += ["--max-size", str(a.max_size)]
    if name in ("side", "side2"):
        args += ["--side", ",".join(SIDE_MODES), "--side-rounds", str(a.side_rounds)]
    if name in a.corrupt.split(","):
        args.append("--corrupt")
    if a.quick:
        args.append("--quick")
    t0 = time.time()
    say("%-28s ..." % (name + tag))
    try:
        p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err, rc = "ran past %d s" % timeout, "timeout"
    rows, unavailable = [], None
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "unavailable" in r:
            unavailable = r["unavailable"]
            continue
        # a side-by-side process's rows: one per mode, "side:auto", "side:native", ...
        r["impl"] = name + ":" + r.pop("side") if "side" in r else name
        rows.append(r)
    say("%-28s %d points, %.0f s%s" % (name + tag, len(rows), time.time() - t0,
                                       "" if rc == 0 else ", exit %s: %s" % (rc, err.strip()[-400:])))
    if rc != 0:
        rows.append({"kernel": "", "size": "", "mode": "", "impl": name, "status": "error",
                     "note": "worker exit %s: %s" % (rc, err.strip()[-300:].replace("\n", " | "))})
    return rows, unavailable, rc


# ---------------------------------------------------------------- reports

FIELDS = ["kernel", "size", "shape", "mode", "impl", "status", "median_s", "min_s", "first_s", "repeats", "err",
          "calls_native", "calls_opencl", "procs", "proc_min_s", "proc_max_s", "proc_medians", "note"]


def merge_rounds(raw, nrounds):
    """One row per (impl, kernel, size, mode) from the rows of every round's
    process (each with its "round", 1-based): the median of the processes'
    medians, their spread (procs, proc_min_s, proc_max_s) and each round's
    median in round order (proc_medians, ';'-separated, empty where that
    round has none).  A MISMATCH or error in any round is the point's status."""
    groups, out = {}, []
    for r in raw:
        if not r.get("kernel"):
            out.append(dict(r, note=("round %d: " % r["round"] if nrounds > 1 else "") + r.get("note", "")))
            continue
        groups.setdefault((r["impl"], r["kernel"], r["size"], r["mode"]), []).append(r)
    for rs in groups.values():
        bad = [r for r in rs if r["status"] in ("MISMATCH", "error")]
        timed = [r for r in rs if r["status"] in ("ok", "unchecked") and r.get("median_s") is not None]
        if bad:
            m = dict(bad[0])
            if nrounds > 1:
                m["note"] = ("round %d: " % m["round"]) + m.get("note", "")
        elif timed:
            meds = [r["median_s"] for r in timed]
            by_round = {r["round"]: r["median_s"] for r in timed}
            m = dict(timed[0], status="unchecked" if any(r["status"] == "unchecked" for r in timed) else "ok",
                     median_s=statistics.median(meds), min_s=min(r.get("min_s", r["median_s"]) for r in timed),
                     procs=len(timed), proc_min_s=min(meds), proc_max_s=max(meds),
                     proc_medians=";".join("%.4g" % by_round[i] if i in by_round else ""
                                           for i in range(1, max(by_round) + 1)))
            if all(isinstance(r.get("repeats"), int) for r in timed):
                m["repeats"] = sum(r["repeats"] for r in timed)
            firsts = [r["first_s"] for r in timed if r.get("first_s") is not None]
            if firsts:
                m["first_s"] = statistics.median(firsts)
            errs = [r["err"] for r in timed if isinstance(r.get("err"), float)]
            if errs:
                m["err"] = max(errs)
            for c in ("calls_native", "calls_opencl"):
                if all(isinstance(r.get(c), int) for r in timed):
                    m[c] = sum(r[c] for r in timed)
        else:
            m = dict(rs[0])   # skipped in every round
        m.pop("round", None)
        out.append(m)
    return out


def fmt_t(s):
    if s is None:
        return ""
    if s < 1e-3:
        return "%.1f µs" % (s * 1e6)
    if s < 1:
        return "%.2f ms" % (s * 1e3)
    return "%.2f s" % s


def summarise(rows, impls, kernels):
    """Per point: the fastest time; the automatic choices' ratios (the
    side-by-side processes' rows apart: side_stats)."""
    pts = {}
    for r in rows:
        if r.get("kernel") and r.get("median_s") is not None and r["status"] in ("ok", "unchecked") and \
                not is_side(r.get("impl")):
            pts.setdefault((r["kernel"], r["size"], r["mode"]), {})[r["impl"]] = r["median_s"]
    return pts


def summarise_round(rows, i):
    """summarise() from round i's process medians alone (0-based; proc_medians)."""
    pts = {}
    for r in rows:
        if r.get("kernel") and r.get("proc_medians") and r["status"] in ("ok", "unchecked"):
            ms = str(r["proc_medians"]).split(";")
            if i < len(ms) and ms[i]:
                pts.setdefault((r["kernel"], r["size"], r["mode"]), {})[r["impl"]] = float(ms[i])
    return pts


def rounds_lines(rows, impls, nrounds):
    """How much a process moves a point, and whether the automatic choice's
    verdicts (within 1.10x of the fastest cyocl option) hold round by round."""
    L = []
    for i in impls:
        sp = sorted(((r["proc_max_s"] / r["proc_min_s"], r) for r in rows
                     if r.get("impl") == i and r.get("kernel") and isinstance(r.get("proc_min_s"), float)
                     and r.get("procs", 0) > 1 and r["proc_min_s"] > 0), key=lambda x: x[0])
        if sp:
            w = sp[-1][1]
            L.append("- `%s`: max/min of the process medians: median %.2f, worst %.2f (%s %s, %s), over 1.25 at "
                     "%d of %d points" % (i, sp[len(sp) // 2][0], sp[-1][0], w["kernel"],
                                         K.BY_NAME[w["kernel"]].shape_str(w["size"]), w["mode"],
                                         sum(1 for x, _ in sp if x > 1.25), len(sp)))
    for which in ("auto", "auto2"):
        if which not in impls:
            continue
        per = []
        verdicts = {}
        for n in range(nrounds):
            ro, _ = auto_stats(summarise_round(rows, n), which)
            if ro:
                per.append("round %d: %s" % (n + 1, stat_line(ro)))
            for x, key in ro:
                verdicts.setdefault(key, set()).add(x <= 1.10)
        # where the processes' spread alone takes the ratio across 1.10
        # (auto's slowest process over the option's fastest, and the reverse)
        straddle = total = 0
        for r in rows:
            if r.get("impl") != which or r.get("status") not in ("ok", "unchecked") or r.get("procs", 0) < 2:
                continue
            opts = [o for o in rows if o.get("kernel") == r["kernel"] and o.get("size") == r["size"] and
                    o.get("mode") == r["mode"] and o.get("status") in ("ok", "unchecked") and
                    isinstance(o.get("proc_min_s"), float) and o.get("proc_min_s") > 0 and
                    (o["impl"] == "native" or (o["impl"].startswith("opencl:") and not o["impl"].endswith("+fma")))]
            if not opts or not isinstance(r.get("proc_min_s"), float):
                continue
            best = min(opts, key=lambda o: o["median_s"])
            total += 1
            straddle += r["proc_min_s"] / best["proc_max_s"] <= 1.10 < r["proc_max_s"] / best["proc_min_s"]
        if per:
            L.append("- `%s` against the fastest cyocl option, each round's processes alone: %s" % (
                which, "; ".join(per)))
            L.append("- `%s`: 1.10x lies inside the range its processes allow (its fastest process's median over "
                     "the option's slowest .. its slowest over the option's fastest) at %d of %d points: there "
                     "the verdict is the processes' noise" % (which, straddle, total))
            flips = [key for key, v in verdicts.items() if len(v) > 1]
            L.append("- `%s`: the verdict (within 1.10x or not) differs between rounds at %d of %d points%s" % (
                which, len(flips), len(verdicts), "" if not flips else " (%s%s)" % (", ".join(
                    "%s %s %s" % (k, K.BY_NAME[k].shape_str(sz), md) for k, sz, md in sorted(flips)[:12]),
                    ", ..." if len(flips) > 12 else "")))
    return L


def is_side(impl):
    return bool(impl) and impl.split(":")[0] in ("side", "side2")


def side_stats(rows, which):
    """`which`:auto over the fastest of `which`'s forced modes at each point
    (all timed in the same process), and the points' rows."""
    pts = {}
    for r in rows:
        if r.get("kernel") and r.get("median_s") is not None and r["status"] in ("ok", "unchecked") and \
                r.get("impl", "").split(":")[0] == which:
            pts.setdefault((r["kernel"], r["size"], r["mode"]), {})[r["impl"].split(":", 1)[1]] = r
    out = []
    for key, t in pts.items():
        opts = [t[m]["median_s"] for m in SIDE_MODES[1:] if m in t]
        if "auto" in t and opts:
            out.append((t["auto"]["median_s"] / min(opts), key))
    return out, pts


def side_lines(rows, impls, kernels, nrounds):
    """The side-by-side section of results.md."""
    L = []
    for which in ("side", "side2"):
        if which not in impls:
            continue
        rs, _ = side_stats(rows, which)
        L.append("- `%s:auto` against the fastest of `%s:native` and `%s:opencl` (the same process): %s" % (
            which, which, which, stat_line(rs)))
    if not L:
        return []
    L = ["## Side by side in one process", "",
         "`side` runs auto, forced native and forced OpenCL (the device auto binds) in one process, switched "
         "with `cyocl.force()`: per point auto's first two calls (`side2`, a second process that finds `side`'s "
         "stored calibration: its first call, timed), the forced modes' two warm-up calls, then %d rounds "
         "of one block of timed calls per mode (auto, OpenCL, native, then native, OpenCL, auto, then as the first: auto and "
         "native each follow an OpenCL block as often), each block after a pause (30 ms; after a block "
         "(or the warm-ups) that moved n bytes n / 5 GB/s, up to 300 ms: the H100's driver works for a while after large frees) and 5 ms of "
         "untimed calls (at least two: threads that slept wake there); plain calls "
         "share the very arrays, resident ones a copy each in a scope of its own.  A process's own speed, "
         "where its threads and pages landed, is then the same for the three.  Each cell: auto's median over "
         "the fastest forced mode's, then where auto's timed calls ran; `n`/`o` the forced times." % nrounds,
         ""] + L + [""]
    _, p1 = side_stats(rows, "side")
    _, p2 = side_stats(rows, "side2")
    L.append("| kernel | size | mode | side: auto / best | native | opencl | side2: auto / best | native | opencl |")
    L.append("|---|---|---|---|---|---|---|---|---|")

    def cells(t):
        if not t or "auto" not in t:
            return ["", "", ""]
        opts = [t[m]["median_s"] for m in SIDE_MODES[1:] if m in t]
        a = t["auto"]
        c = "%.2f" % (a["median_s"] / min(opts)) if opts else ""
        if isinstance(a.get("calls_native"), int):
            nn, no = a["calls_native"], a.get("calls_opencl", 0)
            c += " n" if no == 0 else " o" if nn == 0 else " n+o"
        return [c] + [fmt_t(t[m]["median_s"]) if m in t else "" for m in SIDE_MODES[1:]]
    for k in kernels:
        for mode in ("plain", "resident"):
            for sz in sorted({key[1] for key in list(p1) + list(p2) if key[0] == k.name and key[2] == mode}):
                L.append("| %s | %s | %s | %s |" % (k.name, k.shape_str(sz), mode, " | ".join(
                    cells(p1.get((k.name, sz, mode))) + cells(p2.get((k.name, sz, mode))))))
    L.append("")
    return L


def auto_stats(pts, which):
    """Ratio of `which` to the fastest cyocl option (native, opencl:*) and to the fastest of all."""
    rs_opt, rs_all = [], []
    for key, t in pts.items():
        if which not in t:
            continue
        # the default build's options (auto runs that build: not the +fma one)
        opts = [v for k, v in t.items() if k == "native" or (k.startswith("opencl:") and not k.endswith("+fma"))]
        if opts:
            rs_opt.append((t[which] / min(opts), key))
        rs_all.append((t[which] / min(t.values()), key))
    return rs_opt, rs_all


def stat_line(rs):
    if not rs:
        return "no points"
    within = sum(1 for r, _ in rs if r <= 1.10)
    worst = max(rs)
    return "%d of %d points within 1.10x (%.0f%%), worst %.2fx (%s %s, %s)" % (
        within, len(rs), 100.0 * within / len(rs), worst[0], worst[1][0], K.BY_NAME[worst[1][0]].shape_str(
            worst[1][1]), worst[1][2])


def write_md(path, rows, impls, kernels, meta, clextra):
    pts = summarise(rows, impls, kernels)
    bad = [r for r in rows if r["status"] in ("MISMATCH", "error")]
    L = ["# cyocl benchmark: %s" % meta["label"], "",
         "Command: `%s`  " % meta["command"],
         "Date: %s; %s; %s  " % (meta["date"], meta["host"], meta["python"]),
         "OpenCL devices: %s  " % (meta["devices"] or "none"),
         "Implementations: %s  " % ", ".join(impls),
         "Skipped: %s  " % (meta["unavailable"] or "none"),
         "Machine: %s; the run took %.0f s%s  " % (meta["load"], meta["seconds"], (
             " so far (INCOMPLETE: the run is going on or was cut short)" if meta["partial"] else "")),
         "Processes: %s" % rounds_text(meta), ""]
    L += ["Each cell is the implementation's median time divided by the fastest time at that point "
          "(1.00 = fastest); the fastest is named with its time.  `MISMATCH` / `error`: the result differs "
          "from numpy's or the call failed (excluded from the ratios); `skip`: a smaller size took too long; "
          "`u`: clref's result is not checked; after `auto`'s ratios, where its timed calls ran: `n` native, `o` OpenCL, `n+o` both.  Host implementations (cython, numpy) have no residency: their "
          "resident figure is their plain one.  `auto` is timed from the third call, `auto2` (a second "
          "process) from the first.", ""]
    L += ["## The automatic choice", ""]
    for which in ("auto", "auto2"):
        if which not in impls:
            continue
        ro, ra = auto_stats(pts, which)
        L.append("- `%s` against the fastest cyocl option (native, OpenCL per device): %s" % (which, stat_line(ro)))
        L.append("- `%s` against the fastest of all: %s" % (which, stat_line(ra)))
    if "auto2" in impls:
        firsts = []
        for k in kernels:
            r2 = sorted((r for r in rows if r.get("impl") == "auto2" and r.get("kernel") == k.name and
                         r.get("mode") == "plain" and r.get("first_s") is not None), key=lambda r: r["size"])
            if r2:
                firsts.append("%s %s: %s − %s = %s" % (k.name, k.shape_str(r2[0]["size"]), fmt_t(r2[0]["first_s"]),
                                                       fmt_t(r2[0]["median_s"]),
                                                       fmt_t(max(r2[0]["first_s"] - r2[0]["median_s"], 0))))
        L.append("- `auto2`, the first call of each kernel in the second process (warm kernel cache, stored "
                 "calibration) minus its median call: " + "; ".join(firsts))
    L.append("- results that differ from numpy's, or errors: %d%s" % (
        len(bad), "" if not bad else " — " + "; ".join("%s %s %s %s: %s" % (
            r.get("impl"), r.get("kernel"), r.get("shape", ""), r.get("mode"), r["status"] + (
                " (err %.3g)" % r["err"] if isinstance(r.get("err"), float) else "") + (
                " " + r["note"] if r.get("note") else "")) for r in bad[:20])))
    L.append("")
    L += side_lines(rows, impls, kernels, meta.get("side_rounds", 3))
    if meta.get("rounds_done", 1) > 1:
        L += ["## Process to process", "",
              "A point's figure is the median of its processes' medians (`results.csv`: `procs`, `proc_min_s`, "
              "`proc_max_s`, and each round's median in `proc_medians`).", ""]
        L += rounds_lines(rows, impls, meta["rounds_done"])
        L.append("")
    if clextra:
        L += ["## clref's other figures", ""]
        for name, ex in clextra.items():
            L.append("- `%s` (%s): %s" % (name, ex.get("device", ""), ", ".join(
                "%s %s" % (k, v) for k, v in ex.items() if k != "device")))
        L.append("")
    idx = {(r.get("kernel"), r.get("size"), r.get("mode"), r.get("impl")): r for r in rows}
    for k in kernels:
        L += ["## %s" % k.label, "", "![%s](%s.png)" % (k.name, k.name), ""]
        cols = [i for i in impls if any(key[0] == k.name and key[3] == i for key in idx)]
        L.append("| size | mode | fastest | " + " | ".join(cols) + " |")
        L.append("|---|---|---|" + "---|" * len(cols))
        sizes = sorted({key[1] for key in idx if key[0] == k.name and isinstance(key[1], int)})
        for mode in ("plain", "resident"):
            for s in sizes:
                t = pts.get((k.name, s, mode), {})
                cells = []
                for i in cols:
                    r = idx.get((k.name, s, mode, i))
                    if r is None:
                        cells.append("")
                    elif r["status"] in ("MISMATCH", "error"):
                        cells.append("**%s**" % r["status"])
                    elif r["status"] == "skipped":
                        cells.append("skip")
                    elif i in t:
                        c = "%.2f" % (t[i] / min(t.values()))
                        if i in ("auto", "auto2") and isinstance(r.get("calls_native"), int):
                            nn, no = r["calls_native"], r.get("calls_opencl", 0)
                            c += " n" if no == 0 else " o" if nn == 0 else " n+o"
                        cells.append(c + (" u" if r["status"] == "unchecked" else ""))
                    else:
                        cells.append("")
                if not any(cells):
                    continue
                fast = min(t, key=t.get) if t else None
                L.append("| %s | %s | %s | %s |" % (k.shape_str(s), mode, "%s %s" % (fast, fmt_t(t[fast])) if fast
                                                     else "", " | ".join(cells)))
        L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def rounds_text(meta):
    n, done = meta.get("rounds", 1), meta.get("rounds_done", 1)
    cut = "" if done >= n else (" (round %d of --rounds %d so far)" % (done, n) if meta.get("partial") else
                                " (%d of --rounds %d: the rest cut by --time-limit)" % (done, n))
    counts = sorted(set(meta.get("procs", {}).values())) or [1]
    if counts == [1]:
        return "every implementation in one process of its own%s" % cut
    each = ("every implementation in %d processes of its own" % counts[0] if len(counts) == 1 else
            "processes per implementation: %s" % ", ".join("%s %d" % kv for kv in meta["procs"].items()))
    return ("%s%s, interleaved (round 1 runs each once, then round 2 in a rotated order, ...); a point's time "
            "is the median of the processes' medians; `auto` starts each round with an empty calibration and "
            "kernel cache, and that round's `auto2` finds what it stored" % (each, cut))


def write_plots(out, rows, impls, kernels):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        say("matplotlib is not installed: no plots (./dev setup installs it)")
        return
    # side's modes as lines of their own (side2's would repeat them)
    lines = [i for i in impls if not is_side(i)] + ["side:" + m for m in SIDE_MODES if "side" in impls]
    for k in kernels:
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
        for ax, mode in zip(axes, ("plain", "resident")):
            for n, i in enumerate(lines):
                pts = sorted((r["size"], r["median_s"]) for r in rows if r.get("kernel") == k.name and
                             r.get("mode") == mode and r.get("impl") == i and r.get("median_s") is not None
                             and r["status"] in ("ok", "unchecked"))
                badp = sorted((r["size"], r["median_s"]) for r in rows if r.get("kernel") == k.name and
                              r.get("mode") == mode and r.get("impl") == i and r["status"] == "MISMATCH")
                if not pts and not badp:
                    continue
                style = "--" if i in ("numpy", "cython", "cupy") or i.startswith("clref") else "-"
                marker = "s" if i.startswith("clref") else "o"
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker=marker, ms=4, label=i,
                            color="C%d" % (n % 10))
                if badp:
                    ax.plot([p[0] for p in badp], [p[1] for p in badp], "x", color="red", ms=9,
                            label=i + " MISMATCH")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("size (elements)")
            ax.set_title("%s, %s" % (k.name, "plain calls" if mode == "plain" else "inside cyocl.resident"))
            ax.grid(True, which="both", alpha=0.3)
        axes[0].set_ylabel("time per call (s)")
        axes[1].legend(fontsize=7, loc="upper left")
        fig.suptitle(k.label)
        fig.tight_layout()
        fig.savefig(os.path.join(out, k.name + ".png"), dpi=90)
        plt.close(fig)


def write_reports(a, rows, impls, kernels, clextra, devs, dev_names, unavailable, t_start, load0, plots,
                  rounds_done=1, procs=None):
    rows = list(rows)

    def sort_key(r):
        return (K.KERNELS.index(K.BY_NAME[r["kernel"]]) if r.get("kernel") in K.BY_NAME else 99,
                r.get("mode") or "", r.get("size") if isinstance(r.get("size"), int) else 0,
                impls.index(r["impl"]) if r.get("impl") in impls else 99)
    rows.sort(key=sort_key)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
    cmd = "python3 bench/run.py " + " ".join(sys.argv[1:])
    meta = {"label": a.label or platform.node(), "command": cmd.strip(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "host": "%s, %d cores" % (platform.processor() or platform.machine(), os.cpu_count()),
            "python": "Python %s, numpy %s" % (platform.python_version(), __import__("numpy").__version__),
            "devices": "; ".join("%s = %s (%s)" % (dev_names[d["index"]], d["name"], d["platform"]) for d in devs),
            "unavailable": "; ".join(unavailable),
            "load": "load average %.1f at the start, %.1f at the end, %d cores" % (
                load0, os.getloadavg()[0], os.cpu_count()), "seconds": time.time() - t_start,
            "partial": not plots, "rounds": a.rounds, "rounds_done": rounds_done, "side_rounds": a.side_rounds,
            "procs": {i: (procs or {}).get(i, 1) for i in impls}}
    with open(os.path.join(a.out, "run.json"), "w") as f:
        json.dump({"meta": meta, "impls": impls, "kernels": [k.name for k in kernels], "clextra": clextra}, f,
                  indent=1)
    write_md(os.path.join(a.out, "results.md"), rows, impls, kernels, meta, clextra)
    if plots:
        write_plots(a.out, rows, impls, kernels)


def report_only(out):
    """Rewrites results.md and the plots of an earlier run from its results.csv and run.json."""
    with open(os.path.join(out, "run.json")) as f:
        run = json.load(f)
    rows = []
    with open(os.path.join(out, "results.csv"), newline="") as f:
        for r in csv.DictReader(f):
            for k in ("size", "repeats", "calls_native", "calls_opencl", "procs"):
                r[k] = int(r[k]) if r.get(k) not in (None, "") else None
            for k in ("median_s", "min_s", "first_s", "err", "proc_min_s", "proc_max_s"):
                r[k] = float(r[k]) if r.get(k) not in (None, "") else None
            rows.append({k: v for k, v in r.items() if v is not None and v != ""})
    kernels = [K.BY_NAME[n] for n in run["kernels"]]
    write_md(os.path.join(out, "results.md"), rows, run["impls"], kernels, run["meta"], run["clextra"])
    write_plots(out, rows, run["impls"], kernels)
    return 0


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, few repeats (CI, a 2-core machine)")
    ap.add_argument("--out", default="bench-results", help="output directory (created)")
    ap.add_argument("--label", default=None, help="the machine, for the report's title")
    ap.add_argument("--kernels", default="all", help="c01..c06 or names: " + ",".join(K.BY_NAME))
    ap.add_argument("--impls", default=",".join(ALL_IMPLS), help="subset of " + ",".join(ALL_IMPLS))
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--work", default=None, help="build and scratch directory (default: a temporary one)")
    ap.add_argument("--worker-timeout", type=int, default=None, help="seconds per implementation")
    ap.add_argument("--time-limit", type=int, default=None,
                    help="seconds for the whole run: what would start later is not run (and said so)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds of timed calls per point (default 0.15, --quick 0.03)")
    ap.add_argument("--cap", type=float, default=None,
                    help="skip a size predicted to take longer per call (default 2 s, --quick 0.5 s)")
    ap.add_argument("--max-size", type=int, default=None,
                    help="only the sizes up to this many elements (a shorter run; clref's fixed sizes as they come)")
    ap.add_argument("--corrupt", default="", help=argparse.SUPPRESS)   # bench/selftest.py
    ap.add_argument("--trace", default=None,
                    help="directory: the automatic choice's processes write their CYOCL_TRACE there "
                         "(auto.jsonl, auto2.jsonl, auto.r2.jsonl, ...: every region's choice, predictions and time)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="processes per implementation, interleaved round by round (default 3, --quick 1); "
                         "a point's time is the median of the processes' medians")
    ap.add_argument("--side-rounds", type=int, default=6,
                    help="side, side2: rounds of one block of timed calls per mode in each point (default 6: "
                         "a stretch of slow calls of the machine's spreads over the modes' blocks)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite results.md and the plots in --out from its results.csv and run.json")
    a = ap.parse_args()
    if a.report_only:
        return report_only(a.out)
    a.rounds = a.rounds or (1 if a.quick else 3)
    a.worker_timeout = a.worker_timeout or (300 if a.quick else 900)
    a.budget = a.budget if a.budget is not None else (0.03 if a.quick else 0.15)
    a.cap = a.cap if a.cap is not None else (0.5 if a.quick else 2.0)
    kernels = K.select(a.kernels)
    want = [s.strip() for s in a.impls.split(",") if s.strip()]
    for w in want:
        if w.split(":")[0] not in ALL_IMPLS:
            raise SystemExit("bench: unknown implementation %r (known: %s)" % (w, ", ".join(ALL_IMPLS)))
    if not os.path.exists(a.cyocl):
        raise SystemExit("bench: no cyocl at %s (build it, or --cyocl)" % a.cyocl)
    if not os.path.isdir(CASES):
        print("bench: no conformance cases at %s (CYOCL_SHARED): skipped" % CASES, file=sys.stderr)
        return 77
    t_start = time.time()
    load0 = os.getloadavg()[0]
    work = a.work or tempfile.mkdtemp(prefix="cyocl-bench-")
    # references are kept per version of the kernels' inputs
    with open(os.path.join(HERE, "kernels.py"), "rb") as f:
        refdir = os.path.join(work, "ref-%08x" % zlib.crc32(f.read()))
    os.makedirs(refdir, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    cases = sorted({k.case for k in kernels})
    unavailable = []

    moddir = os.path.join(work, "cyocl")
    say("building %s with cyocl" % ", ".join(cases))
    build_cyocl(os.path.abspath(a.cyocl), cases, moddir)
    fma_kernels = [k for k in kernels if k.name in FMA_KERNELS]
    fmadir = os.path.join(work, "cyocl-fma")
    cydir = None
    if "cython" in want:
        try:
            import Cython  # noqa: F401
            say("building them with Cython")
            cydir = os.path.join(work, "cython")
            build_cython(cases, cydir)
        except (ImportError, subprocess.CalledProcessError) as e:
            unavailable.append("cython (%s)" % (getattr(e, "stderr", "") or e)[-200:])
            cydir = None
    say("built in %.0f s" % (time.time() - t_start))

    base = {k: v for k, v in os.environ.items() if not k.startswith("CYOCL_")}
    for k in ("CYOCL_OPENCL_LIBRARY", "CYOCL_DEVICE_TYPE"):
        if k in os.environ:
            base[k] = os.environ[k]
    # the forced implementations share one kernel cache, warm after its first
    # use (the first process of each builds its kernels before timing); auto
    # gets a new empty one per round (per_round below)
    forced_cache = os.path.join(work, "cache-forced")
    shutil.rmtree(forced_cache, ignore_errors=True)
    os.makedirs(forced_cache, mode=0o700)
    for d in glob.glob(os.path.join(work, "cache-auto*")) + glob.glob(os.path.join(work, "cache-side*")):
        shutil.rmtree(d, ignore_errors=True)
    devs = devices(moddir, dict(base, CYOCL_CACHE_DIR=forced_cache))
    dev_names = {}
    for d in devs:
        nm = "opencl:" + short(d["name"] if "pthread" not in d["name"] and "cpu" != d["type"] else
                               "pocl" if "Portable" in d["platform"] else d["name"])
        while nm in dev_names.values():
            nm += "'"
        dev_names[d["index"]] = nm
    devs_by_name = {dev_names[d["index"]]: d for d in devs}

    impls, plan = [], []
    if "native" in want:
        plan.append(("native", "cyocl", moddir, dict(base, CYOCL_FORCE="native", CYOCL_CACHE_DIR=forced_cache), 2))
    if any(w.split(":")[0] == "opencl" for w in want):
        only = [w.split(":", 1)[1] for w in want if w.startswith("opencl:")]
        for d in devs:
            if only and not any(o.lower() in (d["name"] + d["platform"]).lower() for o in only):
                continue
            plan.append((dev_names[d["index"]], "cyocl", moddir,
                         dict(base, CYOCL_FORCE="opencl", CYOCL_DEVICE=str(d["index"]),
                              CYOCL_CACHE_DIR=forced_cache), 2))
        if not devs:
            unavailable.append("opencl (no OpenCL device)")
    if any(w.startswith("opencl+fma") for w in want) and fma_kernels:
        only = [w.split(":", 1)[1] for w in want if w.startswith("opencl+fma:")]
        for d in devs:
            # every GPU, or the devices named (a CPU device only so)
            if (only and not any(o.lower() in (d["name"] + d["platform"] + dev_names[d["index"]]).lower()
                                 for o in only)) or (
                    not only and d["type"] != "gpu"):
                continue
            if not os.path.isdir(fmadir):
                fcases = sorted({k.case for k in fma_kernels})
                say("building %s with cyocl --fp-contract" % ", ".join(fcases))
                build_cyocl(os.path.abspath(a.cyocl), fcases, fmadir, ["--fp-contract"])
            plan.append((dev_names[d["index"]] + "+fma", "cyocl", fmadir,
                         dict(base, CYOCL_FORCE="opencl", CYOCL_DEVICE=str(d["index"]),
                              CYOCL_CACHE_DIR=forced_cache), 2, fma_kernels))
    # auto and auto2 get their CYOCL_CACHE_DIR (a new, empty one each round)
    # and CYOCL_TRACE when they start: per_round() below
    if "auto" in want:
        plan.append(("auto", "cyocl", moddir, dict(base), 2))
    if "auto2" in want:
        plan.append(("auto2", "cyocl", moddir, dict(base), 0))
    if "side" in want:
        plan.append(("side", "cyocl", moddir, dict(base), 2))
    if "side2" in want:
        plan.append(("side2", "cyocl", moddir, dict(base), 0))
    if "cython" in want and cydir:
        plan.append(("cython", "cython", cydir, base, 2))
    if "numpy" in want:
        plan.append(("numpy", "numpy", None, base, 2))
    if "cupy" in want:
        plan.append(("cupy", "cupy", None, base, 2))

    # clref before the workers of CPU devices: those are the slow ones, and a
    # --time-limit should cut them first
    steps = [("worker", x) for x in plan if not x[0].startswith("opencl:") or
             devs_by_name[x[0].replace("+fma", "")]["type"] == "gpu"]
    if any(w.split(":")[0] == "clref" for w in want):
        # clref:K, as opencl:K: only the devices K names
        only = [w.split(":", 1)[1] for w in want if w.startswith("clref:")]
        steps += [("clref", d) for d in devs
                  if not only or any(o.lower() in (d["name"] + d["platform"] + dev_names[d["index"]]).lower() for o in only)]
        if not devs:
            unavailable.append("clref (no OpenCL device)")
    steps += [("worker", x) for x in plan if x[0].startswith("opencl:") and
              devs_by_name[x[0].replace("+fma", "")]["type"] != "gpu"]

    # the references first, in a process of their own (worker.py --refs-only)
    say("numpy references ...")
    t_ref = time.time()
    rargs = [sys.executable, os.path.join(HERE, "worker.py"), "--kind", "numpy", "--refs-only", "--kernels",
             ",".join(k.name for k in kernels), "--refdir", refdir] + (["--quick"] if a.quick else []) + (
                 ["--max-size", str(a.max_size)] if a.max_size else [])
    try:
        subprocess.run(rargs, env=base, timeout=max(10, (a.time_limit or 3600) // 4))
    except subprocess.TimeoutExpired:
        say("numpy references: out of time (the workers compute the rest)")
    say("numpy references: %.0f s" % (time.time() - t_ref))

    def per_round(name, env, rnd):
        """auto's and auto2's environment in round rnd (1-based): that round's
        calibration and kernel cache directory, which auto starts empty and
        auto2 finds as auto left it; their trace, per round."""
        if name not in ("auto", "auto2", "side", "side2"):
            return env
        fam = name.rstrip("2")
        cache = os.path.join(work, "cache-" + fam if rnd == 1 else "cache-%s.r%d" % (fam, rnd))
        if name == fam or not os.path.isdir(cache):
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache, mode=0o700)
        env = dict(env, CYOCL_CACHE_DIR=cache)
        if a.trace:
            os.makedirs(a.trace, exist_ok=True)
            path = os.path.join(os.path.abspath(a.trace), name + ("" if rnd == 1 else ".r%d" % rnd) + ".jsonl")
            if os.path.exists(path):
                os.remove(path)
            env["CYOCL_TRACE"] = path
        return env

    def step_name(what, x):
        return x[0] if what == "worker" else "clref:" + dev_names[x["index"]].split(":", 1)[1]

    # units of the rotation: auto2 stays right behind its round's auto (it
    # reads what auto stored); the workers of CPU devices stay at the end of
    # every round (the slow ones, which a --time-limit should cut first)
    units, tail = [], []
    for st in steps:
        nm = step_name(*st)
        if nm in ("auto2", "side2") and units and step_name(*units[-1][-1]) == nm[:-1]:
            units[-1].append(st)
        elif st[0] == "worker" and nm.startswith("opencl:") and \
                devs_by_name[nm.replace("+fma", "")]["type"] != "gpu":
            tail.append([st])
        else:
            units.append([st])

    def rotated(us, rnd):
        k = (rnd - 1) % len(us) if us else 0
        return us[k:] + us[:k]

    order = [step_name(*st) for st in steps]
    ran_first = {}          # "auto"/"side" -> the last round it ran
    procs = {}              # step name -> processes run
    raw, clextra = [], {}
    names = {k.name for k in kernels}
    dead = set()            # unavailable in an earlier round: not tried again
    took = {}               # step name -> seconds its last process took
    round_secs = []
    rounds_done = 0
    for rnd in range(1, a.rounds + 1):
        # a round that would not end before --time-limit is not started
        if rnd > 1 and a.time_limit and round_secs and \
                time.time() - t_start + 1.1 * max(round_secs) + 5 > a.time_limit:
            say("--time-limit %d s: %d of %d rounds run (the next would take about %.0f s)" % (
                a.time_limit, rounds_done, a.rounds, max(round_secs)))
            unavailable.append("round%s (not run: --time-limit %d s reached)" % (
                " %d" % rnd if rnd == a.rounds else "s %d-%d" % (rnd, a.rounds), a.time_limit))
            break
        t_round = time.time()
        tag = "" if a.rounds == 1 else " [%d/%d]" % (rnd, a.rounds)
        ran = False
        for what, x in [st for u in rotated(units, rnd) + rotated(tail, rnd) for st in u]:
            nm = step_name(what, x)
            if nm in dead or (nm in ("auto2", "side2") and nm[:-1] in order and ran_first.get(nm[:-1]) != rnd):
                continue   # (auto2 only where this round's auto stored its calibration; side2 so)
            left = a.worker_timeout
            if a.time_limit:
                left = min(left, int(a.time_limit - (time.time() - t_start)))
                # in later rounds, what would run past the limit is not started
                need = 10 if rnd == 1 else 1.2 * took.get(nm, 0) + 2
                if left < need:
                    unavailable.append("%s%s (not run: --time-limit %d s reached)" % (
                        nm, "" if rnd == 1 else " round %d" % rnd, a.time_limit))
                    continue
            t0 = time.time()
            if what == "worker":
                name, kind, md, env, warm = x[:5]
                r, unav, rc = run_worker(name, kind, md, per_round(name, env, rnd), x[5] if len(x) > 5 else kernels,
                                         a, refdir, warm, left, tag)
                if unav:
                    unavailable.append("%s (%s)" % (name, unav))
                    dead.add(nm)
                    continue
                if rc == "timeout" and rnd > 1 and left < a.worker_timeout:
                    # cut by --time-limit in a later round: its finished points count, the cut is said
                    r = [y for y in r if y.get("kernel")]
                    unavailable.append("%s round %d (cut short: --time-limit %d s reached)" % (
                        name, rnd, a.time_limit))
                if kind in ("cython", "numpy"):   # no residency: the resident point is the plain one
                    r += [dict(y, mode="resident", note=(y.get("note", "") + " host: plain call").strip())
                          for y in r if y.get("mode") == "plain"]
                raw += [dict(y, round=rnd) for y in r]
            else:
                say("%-28s ..." % (nm + tag))
                res, why = run_clref(work, x, a.quick, left)
                if why:
                    unavailable.append("%s (%s)" % (nm, why))
                    dead.add(nm)
                    continue
                r, extra = res
                raw += [dict(y, impl=nm, round=rnd) for y in r if y["kernel"] in names]
                clextra.setdefault(nm, extra)   # its other figures: the first round's
            took[nm] = time.time() - t0
            procs[nm] = procs.get(nm, 0) + 1
            ran = True
            if nm in ("auto", "side"):
                ran_first[nm] = rnd
            if nm not in impls:
                impls.append(nm)
            # what is there so far, in case the run is cut short
            write_reports(a, merge_rounds(raw, a.rounds), impls, kernels, clextra, devs, dev_names, unavailable,
                          t_start, load0, plots=False, rounds_done=rnd, procs=procs)
        round_secs.append(time.time() - t_round)
        if ran:
            rounds_done = rnd
    # the report's column order is the plan's, whatever order a round ran in
    impls.sort(key=lambda i: order.index(i) if i in order else len(order))
    rows = merge_rounds(raw, a.rounds)
    write_reports(a, rows, impls, kernels, clextra, devs, dev_names, unavailable, t_start, load0, plots=True,
                  rounds_done=max(rounds_done, 1), procs=procs)
    pts = summarise(rows, impls, kernels)
    for which in ("auto", "auto2"):
        if which in impls:
            ro, _ = auto_stats(pts, which)
            say("%s against the fastest cyocl option: %s" % (which, stat_line(ro)))
    for which in ("side", "side2"):
        if which in impls:
            say("%s:auto against the fastest forced mode in its process: %s" % (which, stat_line(side_stats(rows, which)[0])))
    if rounds_done > 1:
        for line in rounds_lines(rows, impls, rounds_done):
            say(line[2:].replace("`", ""))
    bad = [r for r in rows if r["status"] in ("MISMATCH", "error")]
    say("%d points, %d mismatches or errors, %.0f s; results in %s" % (len(rows), len(bad), time.time() - t_start,
                                                                       a.out))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
