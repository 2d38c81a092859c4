#!/usr/bin/env python3
"""Issue 16's H100 figures in one run, each beside clref and CuPy:

    CYOCL_DEVICE=NVIDIA REF_PLATFORM=NVIDIA python3 bench/issue16.py --out DIR
        [--cyocl build/cyocl] [--small] [--time-limit 440] [--no-extra]

(bench/issue16_h100.sh builds cyocl and runs this on the device machine.)
Runs, one after the other, each in processes of its own, the benchmarks that
measured these figures before (their docstrings say how):

  clref            ../shared/reference/clref.c ($CYOCL_SHARED), built and run
                   once on REF_PLATFORM (full sizes; REF_SMALL with --small)
  latency          launch_latency.py: triad on one element, OpenCL forced
  triad            gpu_plan.py --only triad: triad 2^26 resident
  jacobi           jacobi_resident.py: jacobi(u, t, 100) 4096^2, plain and resident
  worker:*         worker.py (bench/run.py's harness, every result checked against
                   numpy's) at the points triad 1 and 2^26, jacobi 4096^2,
                   sigmoid 2048^2, plain and resident: cyocl with OpenCL forced
                   (the sigmoid layer's plain call: its figure), CuPy (its own
                   copy-in/copy-out for plain calls; one fused kernel for the
                   triad), and cyocl as users get it (the dispatcher, a fresh
                   kernel cache, from the third call)
  transfer         transfer.py --cupy: a 256 MiB argument up and back, and
                   cupy.asarray / get(out=) of the same array
  first_call       first_call.py: dot and triad on 10^2 elements, first call
                   of a new process with a warm kernel cache minus its second
  jacobi:auto      jacobi_resident.py --force auto (the dispatcher)

Writes DIR/issue16.md (figure | threshold | cyocl | clref | CuPy | met?, and
the worker's points side by side), DIR/issue16.json (every figure, and the
scripts' own JSON under "raw"), the scripts' output under DIR/logs/.  A
part that fails or runs out of time leaves its cells "failed" / "not run"
and the rest stands.  --small: sizes for a 2-core machine (PoCL); no
threshold applies then.  CuPy absent: its cells say "not installed".
"""
import argparse, datetime, json, os, platform, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run as R  # noqa: E402  (build_cyocl, CLREF; run.py's main is not run on import)

PY = sys.executable


def now():
    return time.monotonic()


class Driver:
    def __init__(self, a):
        self.a = a
        self.t0 = now()
        self.out = os.path.abspath(a.out)
        for d in ("logs", "raw"):
            os.makedirs(os.path.join(self.out, d), exist_ok=True)
        self.work = a.work or tempfile.mkdtemp(prefix="cyocl-issue16-")
        self.steps = {}    # name -> {"status", "seconds", "note"}
        self.raw = {}

    def left(self):
        return self.a.time_limit - (now() - self.t0)

    def say(self, msg):
        print("[%6.1f s] %s" % (now() - self.t0, msg), flush=True)

    def step(self, name, argv, cap, need=0.0, env=None, json_out=None):
        """Run one part with a timeout (its cap, or what is left of --time-limit);
        its stdout and stderr go to logs/NAME.txt.  need: seconds it must have
        left to start at all (the optional parts)."""
        left = self.left() - 5
        if left < max(need, 10):
            self.steps[name] = {"status": "not run", "note": "%.0f s left of --time-limit" % self.left()}
            self.say("%-22s not run (%.0f s left)" % (name, self.left()))
            return None
        timeout = min(cap, left)
        log = os.path.join(self.out, "logs", name.replace(":", "_") + ".txt")
        t = now()
        self.say("%-22s ... (limit %.0f s)" % (name, timeout))
        try:
            p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
            out, err, rc = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            dec = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")  # noqa: E731
            out, err, rc = dec(e.stdout), dec(e.stderr), "timeout"
        with open(log, "w") as f:
            f.write("$ %s\n" % " ".join(argv))
            f.write(out)
            if err:
                f.write("\n--- stderr\n" + err)
        secs = now() - t
        status = "ok" if rc == 0 else ("ran past %.0f s" % timeout if rc == "timeout" else "failed (rc %s)" % rc)
        self.steps[name] = {"status": status, "seconds": round(secs, 1)}
        self.say("%-22s %s, %.1f s" % (name, status, secs))
        if rc != 0:
            self.steps[name]["note"] = (err or out).strip()[-400:]
        if json_out and rc == 0:
            try:
                with open(json_out) as f:
                    self.raw[name] = json.load(f)
            except (OSError, ValueError) as e:
                self.steps[name].update(status="failed", note="no JSON: %s" % e)
        return out if rc == 0 else None


# ---------------------------------------------------------------- the parts

def run_clref(d, small):
    """clref, built here; its key: value lines."""
    name = "clref"
    exe = os.path.join(d.work, "clref")
    cc = os.environ.get("CC", "cc")
    if not os.path.exists(R.CLREF):
        d.steps[name] = {"status": "not run", "note": "no %s" % R.CLREF}
        return
    p = subprocess.run([cc, "-O2", "-o", exe, R.CLREF, "-lOpenCL", "-lm"], capture_output=True, text=True)
    if p.returncode:   # an ICD loader without its development link (libOpenCL.so)
        p = subprocess.run([cc, "-O2", "-o", exe, R.CLREF, "-l:libOpenCL.so.1", "-lm"], capture_output=True,
                           text=True)
    if p.returncode:
        d.steps[name] = {"status": "failed", "note": "did not build: " + p.stderr.strip()[-300:]}
        return
    env = dict(os.environ, REF_PLATFORM=d.a.ref_platform)
    if small:
        env["REF_SMALL"] = "1"
    out = d.step(name, [exe], 120, env=env)
    if out is None:
        return
    v = {}
    for line in out.splitlines():
        k, _, x = line.partition(":")
        try:
            v[k.strip()] = float(x)
        except ValueError:
            v[k.strip()] = x.strip()
    d.raw[name] = v


def worker(d, label, kind, points, quick, env, warmup, cap, moddir=None, need=0.0):
    kernels = []
    for p in points.split(","):
        k = p.split(":")[0]
        if k not in kernels:
            kernels.append(k)
    argv = [PY, os.path.join(HERE, "worker.py"), "--kind", kind, "--kernels", ",".join(kernels), "--points", points,
            "--refdir", os.path.join(d.work, "refs"), "--warmup", str(warmup), "--rmin", "5", "--rmax", "2001",
            "--budget", "0.5", "--cap", "60"]
    if moddir:
        argv += ["--moddir", moddir]
    if quick:
        argv.append("--quick")
    out = d.step(label, argv, cap, need=need, env=env)
    if out is None:
        return
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    d.raw[label] = rows


# ---------------------------------------------------------------- the table

def med(v):
    return statistics.median(v) if v else None


def fmt(x, unit, digits=1):
    if x is None:
        return None
    return "%.*f %s" % (digits, x, unit)


def build_figures(d, sz):
    """Rows: figure, threshold, cyocl, clref, cupy (strings), value and met."""
    raw, small = d.raw, d.a.small
    rows = []

    def cell(step, f):
        """f(raw) or why there is none."""
        if step not in raw:
            st = d.steps.get(step, {}).get("status", "not run")
            return None, st
        try:
            return f(raw[step]), None
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as e:
            return None, "n/a (%s)" % type(e).__name__

    def cupy_unavailable():
        rows_ = raw.get("worker:cupy")
        if rows_ and "unavailable" in rows_[0]:
            msg = rows_[0]["unavailable"]
            return "not installed" if msg.startswith(("ModuleNotFoundError", "ImportError")) else "unavailable"
        return None

    def wpoint(step, kernel, size, mode):
        rows_ = raw[step]
        if rows_ and "unavailable" in rows_[0]:
            raise ValueError("unavailable")
        for r in rows_:
            if r.get("kernel") == kernel and r.get("size") == size and r.get("mode") == mode:
                if r.get("status") != "ok":
                    raise ValueError(r.get("status"))
                return r
        raise KeyError(kernel)

    def add(figure, threshold, cy, ref, cp, test=None, unit="", digits=1, note=""):
        """cy, ref, cp: (value, why-not) pairs; test(value) -> met."""
        def s(c, is_cp=False):
            v, why = c
            if v is None:
                if is_cp and cupy_unavailable():
                    return cupy_unavailable()
                return why or "—"
            return v if isinstance(v, str) else fmt(v, unit, digits)
        met = None
        if test and cy[0] is not None and not isinstance(cy[0], str):
            met = bool(test(cy[0]))
        rows.append({"figure": figure, "threshold": threshold, "cyocl": s(cy), "clref": s(ref), "cupy": s(cp, True),
                     "cyocl_value": cy[0] if not isinstance(cy[0], str) else None,
                     "clref_value": ref[0] if not isinstance(ref[0], str) else None,
                     "cupy_value": cp[0] if not isinstance(cp[0], str) else None,
                     "unit": unit, "met": met if not small else None, "note": note})
    none = (None, "—")
    lat = lambda kind: cell("latency", lambda r: r["us"]["opencl"][kind]["median"])  # noqa: E731

    add("call with one element, resident: call + `cyocl.finish()` (median µs)", "≤ 20 µs",
        lat("resident + finish"), cell("clref", lambda r: r["launch_finish_us"]),
        cell("worker:cupy", lambda r: wpoint("worker:cupy", "triad", 1, "resident")["median_s"] * 1e6),
        lambda v: v <= 20, "µs", 2, note="clref: launch + clFinish of an empty kernel; CuPy: the fused triad + "
        "synchronize on GPU arrays")
    add("call with one element, plain call (copies in and out)", "—", lat("plain"), none,
        cell("worker:cupy", lambda r: wpoint("worker:cupy", "triad", 1, "plain")["median_s"] * 1e6),
        unit="µs")
    nt = sz["triad"]
    tname = "triad %s f64, resident" % ("2^26" if nt == 1 << 26 else nt)

    def triad_gbps(r, back):
        ms = [v for k, v in r["ms"].items() if k.startswith("cyocl triad") and k.endswith(" back to back") == back]
        return 24 * r["triad_n"] / (ms[0] / 1e3) / 1e9 if ms else None
    # the threshold on clref's own method (launches back to back, one
    # finish); a call followed by cyocl.finish() pays the round trip too
    add(tname + ", calls back to back then one finish, as clref (GB/s, 24 bytes per element)", "≥ 2900 GB/s",
        cell("triad", lambda r: triad_gbps(r, True)),
        cell("clref", lambda r: r["triad_GBps"] if r["triad_n"] == nt else None),
        cell("worker:cupy", lambda r: 24 * nt / wpoint("worker:cupy", "triad", nt, "resident")["median_s"] / 1e9),
        lambda v: v >= 2900, "GB/s", 1)
    add(tname + ", each call followed by `cyocl.finish()` (GB/s)", "—", cell("triad", lambda r: triad_gbps(r, False)),
        none, none, unit="GB/s")
    jn, js = sz["jacobi"], sz["steps"]
    jname = "jacobi(u, t, %d) %d², f64" % (js, jn)
    add(jname + ", resident (median ms)", "≤ 22 ms",
        cell("jacobi", lambda r: r["runs"][0]["median_ms"]["resident"]),
        cell("clref", lambda r: r["jacobi_ms"] if (r["jacobi_sweeps"], r["jacobi_m"]) == (2 * js, jn) else None),
        cell("worker:cupy", lambda r: wpoint("worker:cupy", "jacobi", jn * jn, "resident")["median_s"] * 1e3),
        lambda v: v <= 22, "ms", 2, note="clref: its kernel, %d sweeps back to back" % (2 * js))
    add(jname + ", plain call (median ms)", "≤ 40 ms",
        cell("jacobi", lambda r: r["runs"][0]["median_ms"]["plain"]), none,
        cell("worker:cupy", lambda r: wpoint("worker:cupy", "jacobi", jn * jn, "plain")["median_s"] * 1e3),
        lambda v: v <= 40, "ms", 2, note="CuPy: asarray in, the slicing sweeps, get(out=) back")
    m = sz["sigmoid"]
    sig_cy = cell("worker:opencl", lambda r: wpoint("worker:opencl", "sigmoid", m * m, "plain")["median_s"] * 1e3)
    sig_cp = cell("worker:cupy", lambda r: wpoint("worker:cupy", "sigmoid", m * m, "plain")["median_s"] * 1e3)
    add("sigmoid layer %d², plain call with copies (median ms)" % m, "≤ 12 ms", sig_cy,
        cell("clref", lambda r: r["sigmoid_layer_with_copies_ms"] if r["mm_n"] == m else None), sig_cp, lambda v: v <= 12, "ms", 2,
        note="clref: its 16x16 tiled kernel, x and w in, out back, one run")
    ratio = (sig_cp[0] / sig_cy[0], None) if sig_cy[0] and sig_cp[0] else (None, "n/a")
    rows.append({"figure": "sigmoid layer %d² plain: CuPy's copy-in/copy-out time / cyocl's" % m,
                 "threshold": "≥ 2×", "cyocl": "%.3f×" % ratio[0] if ratio[0] else (cupy_unavailable() or "n/a"),
                 "clref": "—", "cupy": "—", "cyocl_value": ratio[0], "unit": "x",
                 "met": (ratio[0] >= 2 if ratio[0] else None) if not small else None, "note": ""})

    def xfer(key, mode):
        def f(r):
            nbytes = r["mib"] * (1 << 20)
            v = [nbytes / t / 1e9 for run in r["runs"][mode] for t in run[key]]
            return v
        return f

    def cupy_xfer(key, mode):
        def f(r):
            if not r["cupy"] or "unavailable" in r["cupy"][0]:
                raise ValueError("unavailable")
            nbytes = r["mib"] * (1 << 20)
            return [nbytes / t / 1e9 for run in r["cupy"] for t in run[mode][key]]
        return f
    mib = sz["mib"]
    clref_x = {"up": ("h2d_pinned_GBps", "h2d_pageable_GBps"), "back": ("d2h_pinned_GBps", "d2h_pageable_GBps")}
    for key, mode, what in (("up", "warm", "up, array in the host's cache"), ("back", "warm", "back, in the cache"),
                            ("up", "cold", "up, host's cache flushed"), ("back", "cold", "back, cache flushed")):
        v, why = cell("transfer", xfer(key, mode))
        cv, cwhy = cell("transfer", cupy_xfer(key, mode))
        if "transfer" in raw and raw["transfer"].get("cupy") and "unavailable" in raw["transfer"]["cupy"][0]:
            msg = raw["transfer"]["cupy"][0]["unavailable"]
            cwhy = "not installed" if msg.startswith(("ModuleNotFoundError", "ImportError")) else "unavailable"
        rv = cell("clref", lambda r: "pinned %.1f, pageable %.1f GB/s" % (r[clref_x[key][0]], r[clref_x[key][1]]))
        desc = lambda x: "%.2f GB/s (%.1f-%.1f; %d of %d ≥ 40)" % (  # noqa: E731
            med(x), min(x), max(x), sum(y >= 40 for y in x), len(x))
        rows.append({"figure": "%d MiB f64 argument %s (median GB/s)" % (mib, what), "threshold": "≥ 40 GB/s",
                     "cyocl": desc(v) if v else why, "clref": rv[0] or rv[1], "cupy": desc(cv) if cv else cwhy,
                     "cyocl_value": med(v) if v else None, "cyocl_samples": v, "cupy_value": med(cv) if cv else None,
                     "cupy_samples": cv, "unit": "GB/s", "met": (med(v) >= 40 if v else None) if not small else None,
                     "note": "cyocl: inside cyocl.resident, a call's upload minus the kernel, and cyocl.to_host; "
                             "CuPy: cupy.asarray, ndarray.get(out=a)"})

    def fc(r):
        return [p["first_minus_second"] * 1e3 for p in r["procs"]]
    vals, whys = [], []
    for f in ("first_call:dot", "first_call:triad"):
        v, why = cell(f, fc)
        if v:
            vals += v
        else:
            whys.append("%s %s" % (f, why))
    rows.append({"figure": "first call of a new process, warm kernel cache, minus its second "
                           "(dot and triad on 10², the dispatcher; worst process, ms)",
                 "threshold": "≤ 5 ms",
                 "cyocl": ("%.2f ms (all: %s)" % (max(vals), ", ".join("%.2f" % x for x in vals))) if vals
                 else "; ".join(whys), "clref": "—", "cupy": "—", "cyocl_value": max(vals) if vals else None,
                 "cyocl_samples": vals, "unit": "ms",
                 "met": (max(vals) <= 5 if vals else None) if not small else None,
                 "note": "; ".join(whys)})
    return rows


def worker_table(d, points):
    """The worker's points side by side: median (min) per implementation."""
    cols = [("worker:opencl", "cyocl, OpenCL forced"), ("worker:auto", "cyocl as users get it (dispatcher)"),
            ("worker:cupy", "CuPy")]
    lines = ["| point | mode | " + " | ".join(c[1] for c in cols) + " |", "|---|---|" + "---|" * len(cols)]
    for p in points.split(","):
        k, size = p.split(":")
        size = int(size)
        for mode in ("plain", "resident"):
            cells = []
            for step, _ in cols:
                rows_ = d.raw.get(step)
                if rows_ is None:
                    cells.append(d.steps.get(step, {}).get("status", "not run"))
                    continue
                if rows_ and "unavailable" in rows_[0]:
                    msg = rows_[0]["unavailable"]
                    cells.append("not installed" if msg.startswith(("ModuleNotFoundError", "ImportError"))
                                 else "unavailable")
                    continue
                r = [x for x in rows_ if x.get("kernel") == k and x.get("size") == size and x.get("mode") == mode]
                if not r:
                    cells.append("—")
                elif r[0].get("status") != "ok":
                    cells.append(r[0].get("status", "?"))
                else:
                    r = r[0]
                    t, tmin = r["median_s"], r["min_s"]
                    u, sc = ("µs", 1e6) if t < 1e-3 else ("ms", 1e3)
                    side = ""
                    if "calls_opencl" in r and step == "worker:auto":
                        side = "; native %s / OpenCL %s" % (r.get("calls_native"), r.get("calls_opencl"))
                    cells.append("%.1f %s (min %.1f; %d calls%s)" % (t * sc, u, tmin * sc, r["repeats"], side))
            shape = "x".join([str(int(round(size ** 0.5)))] * 2) if k != "triad" else str(size)
            lines.append("| %s %s | %s | %s |" % (k, shape, mode, " | ".join(cells)))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--small", action="store_true", help="small sizes, few rounds (a 2-core machine, PoCL)")
    ap.add_argument("--time-limit", type=float, default=440, help="seconds for all the parts together")
    ap.add_argument("--no-extra", action="store_true", help="leave out the dispatcher's runs (worker:auto, jacobi:auto)")
    ap.add_argument("--ref-platform", default=os.environ.get("REF_PLATFORM", "NVIDIA"))
    ap.add_argument("--work", help="a work directory (default: a new temporary one)")
    ap.add_argument("--note", default="", help="a line for the table's head (the command, the commit)")
    a = ap.parse_args()
    a.cyocl = os.path.abspath(a.cyocl)
    d = Driver(a)
    small = a.small
    # --small: clref's REF_SMALL sizes (its jacobi runs 20 sweeps: 10 steps)
    sz = ({"triad": 1 << 23, "jacobi": 1024, "steps": 10, "sigmoid": 512, "mib": 16} if small else
          {"triad": 1 << 26, "jacobi": 4096, "steps": 100, "sigmoid": 2048, "mib": 256})
    points = "triad:1,triad:%d,jacobi:%d,sigmoid:%d" % (sz["triad"], sz["jacobi"] ** 2, sz["sigmoid"] ** 2)
    raw = lambda name: os.path.join(d.out, "raw", name + ".json")  # noqa: E731
    cy = ["--cyocl", a.cyocl]
    d.say("issue 16's figures%s, CYOCL_DEVICE=%s, REF_PLATFORM=%s, work %s" % (
        " (--small)" if small else "", os.environ.get("CYOCL_DEVICE", ""), a.ref_platform, d.work))

    run_clref(d, small)
    d.step("latency", [PY, os.path.join(HERE, "launch_latency.py")] + cy + [
        "--calls", "300" if small else "2000", "--rounds", "1" if small else "3", "--no-clref",
        "--json", raw("latency")], 90, json_out=raw("latency"))
    d.step("triad", [PY, os.path.join(HERE, "gpu_plan.py")] + cy + [
        "--only", "triad", "--reps", "50", "--triad-n", str(sz["triad"]), "--json", raw("triad")], 90,
        json_out=raw("triad"))
    d.step("jacobi", [PY, os.path.join(HERE, "jacobi_resident.py")] + cy + [
        "--n", str(sz["jacobi"]), "--steps", str(sz["steps"]), "--rounds", "2" if small else "3", "--calls", "5",
        "--json", raw("jacobi")], 90, json_out=raw("jacobi"))
    d.step("transfer", [PY, os.path.join(HERE, "transfer.py")] + cy + [
        "--mib", str(sz["mib"]), "--rounds", "1" if small else "3", "--repeats", "3" if small else "5", "--no-clref",
        "--cupy", "--json", raw("transfer"), "--work", os.path.join(d.work, "transfer")], 150,
        json_out=raw("transfer"))
    env_auto = dict(os.environ)   # the dispatcher: no CYOCL_FORCE
    env_auto.pop("CYOCL_FORCE", None)
    for f in ("dot", "triad"):
        d.step("first_call:" + f, [PY, os.path.join(HERE, "first_call.py")] + cy + [
            "--func", f, "--procs", "2" if small else "3", "--json", raw("first_call_" + f)], 90, env=env_auto,
            json_out=raw("first_call_" + f))
    # the worker's modules and the references, once for all three workers
    moddir = os.path.join(d.work, "mod")
    try:
        R.build_cyocl(a.cyocl, ["c01_triad", "c03_stencil2d", "c06_mlp"], moddir)
    except SystemExit as e:
        d.steps["worker build"] = {"status": "failed", "note": str(e)[-400:]}
    d.step("worker:refs", [PY, os.path.join(HERE, "worker.py"), "--kind", "numpy", "--refs-only", "--kernels",
                           "triad,jacobi,sigmoid", "--points", points, "--refdir", os.path.join(d.work, "refs")]
           + (["--quick"] if small else []), 120)
    env_cl = dict(os.environ, CYOCL_FORCE="opencl")
    worker(d, "worker:opencl", "cyocl", points, small, env_cl, 3, 120, moddir)
    worker(d, "worker:cupy", "cupy", points, small, env_auto, 3, 120)
    if not a.no_extra:
        worker(d, "worker:auto", "cyocl", points, small, dict(env_auto, CYOCL_CACHE_DIR=os.path.join(d.work, "auto")),
               2, 120, moddir, need=60)
        d.step("jacobi:auto", [PY, os.path.join(HERE, "jacobi_resident.py")] + cy + [
            "--n", str(sz["jacobi"]), "--steps", str(sz["steps"]), "--rounds", "1", "--calls", "5", "--force", "auto",
            "--json", raw("jacobi_auto")], 90, need=30, json_out=raw("jacobi_auto"))

    rows = build_figures(d, sz)
    total = now() - d.t0
    meta = {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "host": platform.node(), "cpus": os.cpu_count(), "cyocl_device": os.environ.get("CYOCL_DEVICE", ""),
            "ref_platform": a.ref_platform, "small": small, "sizes": sz, "seconds": round(total, 1),
            "note": a.note, "argv": sys.argv}
    for k in ("device", "platform"):
        if "clref" in d.raw and k in d.raw["clref"]:
            meta["clref_" + k] = d.raw["clref"][k]
    try:
        meta["cyocl_devices"] = subprocess.run([a.cyocl, "devices"], capture_output=True, text=True,
                                               timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        pass
    with open(os.path.join(d.out, "issue16.json"), "w") as f:
        json.dump({"meta": meta, "figures": rows, "steps": d.steps, "raw": d.raw}, f, indent=1, default=str)
    md = ["# Issue 16's H100 figures in one run%s" % (" (--small: no threshold applies)" if small else ""), ""]
    if a.note:
        md += [a.note, ""]
    md += ["%s; clref on %s; %.0f s for all parts." % (meta["date_utc"], meta.get("clref_device", "?"), total), "",
           "| figure | threshold | cyocl | clref | CuPy | met? |", "|---|---|---|---|---|---|"]
    for r in rows:
        met = "—" if r["met"] is None else ("**yes**" if r["met"] else "**no**")
        md.append("| %s | %s | %s | %s | %s | %s |" % (r["figure"], r["threshold"], r["cyocl"], r["clref"], r["cupy"],
                                                        met))
    notes, seen = [], set()
    for r in rows:
        if r.get("note") and r["note"] not in seen:
            seen.add(r["note"])
            notes.append("- %s: %s" % (r["figure"].split(" (")[0], r["note"]))
    if notes:
        md += [""] + notes
    md += ["", "bench/worker.py's points (bench/run.py's harness; each result checked against numpy's; "
           "median of up to 2001 calls or 0.5 s):", ""]
    md += worker_table(d, points)
    if "jacobi:auto" in d.raw:
        r = d.raw["jacobi:auto"]["runs"][0]
        md += ["", "jacobi_resident.py as users get it (the dispatcher): plain %.2f ms, resident %.2f ms (calls per "
               "side: %s)" % (r["median_ms"]["plain"], r["median_ms"]["resident"], r["stats"])]
    md += ["", "| part | status | seconds |", "|---|---|---|"]
    md += ["| %s | %s | %s |" % (k, v["status"], v.get("seconds", "")) for k, v in d.steps.items()]
    with open(os.path.join(d.out, "issue16.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    shutil.rmtree(d.work, ignore_errors=True) if not a.work else None
    return 0


if __name__ == "__main__":
    sys.exit(main())
