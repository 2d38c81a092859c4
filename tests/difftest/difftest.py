#!/usr/bin/env python3
"""cyocl differential tester: random valid Cython programs, built with cyocl
(--no-opencl; default build under CYOCL_FORCE=native and, with --opencl,
CYOCL_FORCE=opencl) and with Cython 3 + OpenMP, run on the same inputs at
several OMP_NUM_THREADS; every return value, exception (type and message) and
array argument after the call is compared.  A difference is isolated,
confirmed, shrunk (greedy delta debugging over the program tree, the inputs'
shapes and aliasing) and saved with a driver and a note.

usage: difftest.py [--seconds N | --count N] [--seed S] [--opencl]
                   [--threads 1,3,33] [--keep DIR] [--batch N] [--self-test]
Closing lines: 'difftest: N programs, M differences' and 'N passed, N failed'.
"""
import argparse
import json
import os
import pickle
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
from gen import G, make_spec  # noqa: E402
from interp import validate, Invalid  # noqa: E402
from prog import render_module, render_function, make_env, uses_ext, HEADER  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
EXT = sysconfig.get_config_var("EXT_SUFFIX")
PYINC = sysconfig.get_paths()["include"]


def log(*a):
    print(*a, flush=True)


def run(cmd, env=None, cwd=None, timeout=600):
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return -999, "timed out after %ss\n%s" % (timeout, out[-2000:])


# ------------------------------------------------------------------ builds
def build_cython(src, outdir, name, opt):
    os.makedirs(outdir, exist_ok=True)
    pyx = os.path.join(outdir, name + ".pyx")
    with open(pyx, "w") as f:
        f.write(src)
    rc, out = run([sys.executable, "-m", "cython", "-3", pyx, "-o", os.path.join(outdir, name + ".c")])
    if rc != 0:
        return rc, out
    cc = os.environ.get("CC", "cc").split()
    # -fwrapv: CPython's CFLAGS carry it, so setuptools builds Cython's C with it
    rc, out2 = run(cc + [opt, "-fwrapv", "-fopenmp", "-fPIC", "-shared", "-w", "-I" + PYINC, "-I" + np.get_include(),
                         os.path.join(outdir, name + ".c"), "-o", os.path.join(outdir, name + EXT), "-lm"])
    return rc, out + out2


def build_cyocl(cyocl, src, outdir, name, opencl, opt="3"):
    os.makedirs(outdir, exist_ok=True)
    pyx = os.path.join(outdir, name + ".pyx")
    with open(pyx, "w") as f:
        f.write(src)
    cmd = [cyocl, "build", "-O", opt, "-o", outdir] + ([] if opencl else ["--no-opencl"]) + [pyx]
    return run(cmd)


def opencl_decisions(cyocl, pyxdir, name):
    """{line: 'opencl' | 'native only: ...'} from `cyocl compile -v`."""
    pyx = os.path.join(pyxdir, name + ".pyx")
    rc, out = run([cyocl, "compile", "-v", "-o", os.path.join(pyxdir, "_v.c"), pyx])
    res = {}
    for m in re.finditer(r"^\S+\.pyx:(\d+): region \d+ \(function (\w+)\): (.*)$", out, re.M):
        res.setdefault(m.group(2), []).append((int(m.group(1)), m.group(3)))
    return res


# ------------------------------------------------------------------ running
class Config:
    def __init__(self, label, kind, threads, force=None):
        self.label, self.kind, self.threads, self.force = label, kind, threads, force


def run_config(cfg, moddir, name, specs, work, timeout):
    """Returns {fname: (outcome, arrays)}; a crash or hang is the outcome of
    the function that was running, and the rest are run again after it."""
    tag = "%s_%s" % (name, cfg.label.replace("@", "_"))
    specf = os.path.join(work, tag + ".specs")
    with open(specf, "wb") as f:
        pickle.dump(specs, f)
    res = {}
    first = 0
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(cfg.threads)
    env.setdefault("OMP_WAIT_POLICY", "passive")   # 33 threads on a few cores
    env.pop("CYOCL_FORCE", None)
    if cfg.force:
        env["CYOCL_FORCE"] = cfg.force
    if cfg.force == "opencl":
        env["CYOCL_TRACE"] = os.path.join(work, tag + ".trace")
    env.setdefault("CYOCL_CACHE_DIR", os.path.join(work, "kcache"))
    env.setdefault("POCL_CACHE_DIR", os.path.join(work, "pocl-cache"))
    while first < len(specs):
        outp = os.path.join(work, tag + ".out%d" % first)
        prog = os.path.join(work, tag + ".prog%d" % first)
        for p in (outp, prog):
            if os.path.exists(p):
                os.remove(p)
        # the first OpenCL region of a module builds all its kernels (PoCL: slow on a busy machine)
        rc, out = run([sys.executable, os.path.join(HERE, "runner.py"), moddir, name, specf, outp, prog, str(first)],
                      env=env, timeout=timeout * (4 if cfg.force == "opencl" else 1))
        done = []
        if os.path.exists(outp):
            with open(outp, "rb") as f:
                while True:
                    try:
                        rec = pickle.load(f)
                    except EOFError:
                        break
                    except Exception:  # noqa: BLE001 (torn record)
                        break
                    done.append(rec)
        for fname, outcome, arrays in done:
            res[fname] = (outcome, arrays)
        first += len(done)
        if rc == 0 and first >= len(specs):
            break
        if first >= len(specs):
            break
        # the function that was running crashed or hung
        culprit = specs[first][0]
        what = "hang" if rc == -999 else "crash"
        res[culprit] = (("fatal", what, "exit %s: %s" % (rc, out.strip()[-600:])), [])
        first += 1
    return res


def same_value(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    return a == b


def same_arrays(xs, ys):
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype.kind == "f":
            if not np.array_equal(x, y, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


ARG_SUFFIX = re.compile(r" \(argument '[A-Za-z_][A-Za-z_0-9]*'\)$")


def compare(ref, got, exc_in_prange=False):
    """None when equal, else a short description."""
    (ro, ra), (go, ga) = ref, got
    if ro[0] != go[0]:
        return "outcome %s vs %s" % (short(ro), short(go))
    if ro[0] == "exc":
        # cyocl names the argument a boundary check rejected, after Cython's
        # own message (its documented difference: README, "errors")
        if ro[1:] != tuple(ARG_SUFFIX.sub("", x) if isinstance(x, str) else x for x in go[1:]):
            return "exception %s vs %s" % (short(ro), short(go))
        return None   # partial writes of a failing call are not compared
    if ro[0] == "ret" and not same_value(ro[1], go[1]):
        return "return %s vs %s" % (short(ro), short(go))
    if not same_arrays(ra, ga):
        bad = []
        for k, (x, y) in enumerate(zip(ra, ga)):
            if x.shape == y.shape and x.dtype == y.dtype:
                m = ~((x == y) | ((x != x) & (y != y))) if x.dtype.kind == "f" else x != y
                n = int(np.count_nonzero(m))
                if n:
                    pos = tuple(int(p[0]) for p in np.nonzero(m))
                    bad.append("base %d: %d/%d elements differ, first at %s: %r vs %r" % (
                        k, n, x.size, pos, x[pos].item(), y[pos].item()))
        return "arrays: " + "; ".join(bad)
    return None


def short(o):
    s = repr(o)
    return s if len(s) < 200 else s[:200] + "..."


def features(fn):
    """The constructs a function uses (counted in the closing stats line)."""
    text = repr(fn["body"])
    out = []
    for f, mark in (("row_slice", "'at'"), ("parallel_block", "'parallel'"), ("c_array", "'carr'"),
                    ("pointer", "'paddr'"), ("with_nogil", "'nogil'"), ("abs", "'abs'"),
                    ("try_except", "'try'")):
        if mark in text:
            out.append(f)
    if any(h["ret"] in ("real_t", "cython.floating") for h in fn.get("helpers", ())) and "'hcall'" in text:
        out.append("fused_helper")
    if fn.get("buf") and not uses_ext(fn):
        out.append("ndarray_buffer")
    if fn.get("fused"):
        out.append("fused_def")
    return out


# ------------------------------------------------------------------ the tester
class Tester:
    def __init__(self, a):
        self.a = a
        self.cyocl = a.cyocl
        self.work = a.keep or tempfile.mkdtemp(prefix="cyocl-difftest-")
        os.makedirs(self.work, exist_ok=True)
        self.found_dir = a.found or os.path.join(self.work, "found")
        self.threads = [int(t) for t in a.threads.split(",")]
        self.rng = random.Random(a.seed)
        self.stats = dict(programs=0, compared=0, rejected=0, nondet=0, oracle_mismatch=0,
                          cython_reject=0, cyocl_limit=0, cyocl_reject=0, differences=0,
                          ocl_regions_eligible=0, ocl_regions_ran=0, ocl_functions=0, runs=0,
                          ext=0, aliasing=0, ref_fatal=0, product=0, product_fp=0, product_big=0)
        self.reject_reasons = {}
        self.times = {"generate": 0.0, "build": 0.0, "run+shrink": 0.0}
        self.limits = {}
        self.findings = []       # dicts
        self.flaky = []
        self.signatures = {}
        self.nfound = 0
        self.serial = 0

    # -------------------------------------------------------- generation
    def gen_function(self, name):
        g = G(self.rng, {"ext": not self.a.no_ext})
        for _ in range(60):
            large = self.rng.random() < self.a.large
            fn = g.function(name, large=large)
            fn["inputs"] = make_spec(fn)
            try:
                outcome, it, bases = validate(fn)
            except Invalid as e:
                k = str(e).split(" (")[0]
                self.reject_reasons[k] = self.reject_reasons.get(k, 0) + 1
                self.stats["rejected"] += 1
                continue
            except Exception as e:  # noqa: BLE001 (a tester bug: counted, shown with -v)
                self.stats["rejected"] += 1
                k = "tester error %s" % type(e).__name__
                self.reject_reasons[k] = self.reject_reasons.get(k, 0) + 1
                if self.a.verbose:
                    import traceback
                    traceback.print_exc()
                continue
            fn["oracle"] = (outcome, bases)
            fn["exc_in_prange"] = it.exc_in_prange
            for f in features(fn):
                self.stats[f] = self.stats.get(f, 0) + 1
            if large and not self.large_is_valid(fn):
                self.stats["rejected"] += 1
                k = "race with other data (large function)"
                self.reject_reasons[k] = self.reject_reasons.get(k, 0) + 1
                continue
            if large:
                fn["run_shape"] = [self.rng.choice((300000, 600000, 1000000))]
                fn["inputs"] = make_spec(fn, fn["run_shape"])
                fn["oracle"] = None
            elif fn.get("product") and self.rng.random() < 0.8 and self.large_is_valid(fn, [[24, 24]]):
                # a floating-point matrix-product nest also at the sizes where
                # the native planner's blocks (32 rows, 128 steps of k) fill
                m = self.rng.choice((40, 70, 136, 200))
                fn["run_shape"] = [m, m]
                fn["inputs"] = make_spec(fn, fn["run_shape"])
                fn["oracle"] = None
            if fn.get("square"):
                self.stats["product"] += 1
                self.stats["product_fp"] += bool(fn.get("product"))
                self.stats["product_big"] += bool(fn.get("run_shape"))
            return fn
        raise RuntimeError("generator: no valid function in 60 tries")

    def large_is_valid(self, fn, bigger=([200], [200], [1000])):
        """A large function runs on data the validator never saw (it is
        validated at a small shape): a race or an error that depends on the
        values (a branch taken by some elements only; H100 finding in session
        4) would pass.  So it is validated again on other data, at the small
        shape and at 200 and 1000 elements: such races are then found with
        high probability, not certainty (README, "Differential testing")."""
        specs = []
        for shape in [None] * 6 + list(bigger):
            spec = make_spec(fn, shape)
            spec["bases"] = [b[:4] + (self.rng.randrange(1 << 30),) for b in spec["bases"]]
            specs.append(spec)
        for spec in specs:
            try:
                validate(fn, spec)
            except Invalid:
                return False
            except Exception:  # noqa: BLE001 (as in gen_function)
                return False
        return True

    # -------------------------------------------------------- configs
    def configs(self, kinds=None):
        out = []
        for t in self.threads:
            out.append(Config("cython@%d" % t, "cython", t))
        for t in self.threads:
            out.append(Config("noocl@%d" % t, "noocl", t))
            out.append(Config("native@%d" % t, "ocl", t, "native"))
            if self.a.opencl:
                out.append(Config("opencl@%d" % t, "ocl", t, "opencl"))
        if kinds:
            out = [c for c in out if c.label in kinds]
        return out

    def build_all(self, fns, name, bdir, kinds=("cython", "noocl", "ocl")):
        """Builds the module of fns with every compiler; functions a compiler
        rejects are removed (and recorded).  Returns the kept functions."""
        fns = list(fns)
        for rnd in range(6):
            cy_src, starts = render_module(fns, "cython")
            oc_src, starts2 = render_module(fns, "cyocl")
            jobs = {}
            with ThreadPoolExecutor(max_workers=3) as ex:
                if "cython" in kinds:
                    jobs["cython"] = ex.submit(build_cython, cy_src, os.path.join(bdir, "cython"), name, self.a.cython_opt)
                if "noocl" in kinds:
                    jobs["noocl"] = ex.submit(build_cyocl, self.cyocl, oc_src, os.path.join(bdir, "noocl"), name, False,
                                             self.a.noocl_opt)
                if "ocl" in kinds:
                    jobs["ocl"] = ex.submit(build_cyocl, self.cyocl, oc_src, os.path.join(bdir, "ocl"), name, True)
                res = {k: v.result() for k, v in jobs.items()}
            bad = {}
            for k, (rc, out) in res.items():
                if rc == 0:
                    continue
                st = starts if k == "cython" else starts2
                culprits = self.blame(out, st, fns, name)
                if not culprits:
                    culprits = self.bisect(fns, k, bdir, name)
                for fname, msg in culprits.items():
                    bad.setdefault(fname, (k, msg, rc))
            if not bad:
                return fns
            for fname, (k, msg, rc) in bad.items():
                fn = next(f for f in fns if f["name"] == fname)
                self.compile_finding(fn, k, msg, rc)
            fns = [f for f in fns if f["name"] not in bad]
            if not fns:
                return fns
        return []

    def blame(self, out, starts, fns, name):
        lines = sorted((v, k) for k, v in starts.items())
        culprits = {}
        # warnings and performance hints carry positions too: only an error blames
        for m in re.finditer(r"^(\w[\w ]*: )?\S*%s\.pyx:(\d+):(\d+):\s*(?:error:)?\s*(.*)" % re.escape(name),
                             out, re.M):
            if m.group(1) and not m.group(1).startswith("error"):
                continue
            ln = int(m.group(2))
            owner = None
            for start, fname in lines:
                if start <= ln:
                    owner = fname
            if owner and "warning" not in m.group(4)[:10]:
                culprits.setdefault(owner, m.group(4).strip())
        return culprits

    def bisect(self, fns, kind, bdir, name):
        """No positioned error: find the functions whose build fails alone."""
        culprits = {}
        def test(group):
            src, _ = render_module(group, "cython" if kind == "cython" else "cyocl")
            d = os.path.join(bdir, "bisect")
            if kind == "cython":
                return build_cython(src, d, name + "_b", self.a.cython_opt)
            return build_cyocl(self.cyocl, src, d, name + "_b", kind == "ocl")
        def rec(group):
            rc, out = test(group)
            if rc == 0:
                return
            if len(group) == 1:
                culprits[group[0]["name"]] = "exit %d: %s" % (rc, out.strip()[-1500:])
                return
            h = len(group) // 2
            rec(group[:h])
            rec(group[h:])
        rec(fns)
        return culprits

    def compile_finding(self, fn, kind, msg, rc):
        if getattr(self, "quiet", False):
            return
        if kind == "cython":
            self.stats["cython_reject"] += 1
            log("  generator: Cython rejects %s: %s" % (fn["name"], msg[:300]))
            if self.a.verbose:
                log(render_function(fn, "cython"))
            return
        if rc == 1 and "not supported" in msg:
            self.stats["cyocl_limit"] += 1
            key = re.sub(r"'[^']*'", "'X'", msg)[:120]
            self.limits[key] = self.limits.get(key, 0) + 1
            return
        # positioned rejection of a valid program, internal error, crash, C compiler error
        self.stats["cyocl_reject"] += 1
        sig = ("compile", kind, re.sub(r"\d+", "N", msg[:80]))
        self.record(fn, "build[%s]" % kind, "cyocl build fails (exit %s): %s" % (rc, msg[:2000]), sig,
                    shrinkable=False)

    # -------------------------------------------------------- one batch
    def batch(self, nfun):
        bid = self.serial
        self.serial += 1
        name = "dt%d" % bid
        fns = []
        t0 = time.time()
        for k in range(nfun):
            fns.append(self.gen_function("f%d_%d" % (bid, k)))
        self.stats["programs"] += len(fns)
        bdir = os.path.join(self.work, name)
        t1 = time.time()
        fns = self.build_all(fns, name, bdir)
        t2 = time.time()
        self.times["generate"] += t1 - t0
        self.times["build"] += t2 - t1
        if not fns:
            return
        self.compare_module(fns, name, bdir)
        self.times["run+shrink"] += time.time() - t2
        if not self.a.keep_builds:
            shutil.rmtree(bdir, ignore_errors=True)

    def specs_of(self, fns):
        return [(f["name"], f["inputs"]) for f in fns]

    def compare_module(self, fns, name, bdir, configs=None, shrinking=False):
        """Runs every configuration; returns {fname: [(label, diff)]}."""
        cfgs = configs or self.configs()
        specs = self.specs_of(fns)
        dirs = {"cython": os.path.join(bdir, "cython"), "noocl": os.path.join(bdir, "noocl"),
                "ocl": os.path.join(bdir, "ocl")}
        results = {}
        with ThreadPoolExecutor(max_workers=self.a.jobs) as ex:
            futs = {c.label: ex.submit(run_config, c, dirs[c.kind], name, specs, bdir, self.a.timeout) for c in cfgs}
            for lab, fu in futs.items():
                results[lab] = fu.result()
        self.stats["runs"] += len(cfgs) * len(fns)
        diffs = {}
        ref_label = "cython@%d" % self.threads[0]
        for fn in fns:
            fname = fn["name"]
            ref = results[ref_label].get(fname)
            if ref is None:
                continue
            if ref[0][0] == "fatal":
                # Cython itself crashed or hung: nothing to compare with
                if not shrinking:
                    self.stats["ref_fatal"] += 1
                    log("  Cython reference %s in %s: %s" % (ref[0][1], fname, ref[0][2][:200]))
                continue
            # Cython itself must agree across thread counts (else the program is not deterministic)
            nondet = False
            for c in cfgs:
                if c.kind == "cython" and c.label != ref_label:
                    if compare(ref, results[c.label][fname]) is not None:
                        nondet = True
            if nondet:
                if not shrinking:
                    self.stats["nondet"] += 1
                    if self.a.verbose:
                        log("  nondeterministic under Cython: %s" % fname)
                continue
            if not shrinking:
                self.stats["compared"] += 1
                if uses_ext(fn):
                    self.stats["ext"] += 1
                if fn.get("aliasing"):
                    self.stats["aliasing"] += 1
                if fn.get("oracle") and ref[0][0] != "fatal":
                    d = compare(fn["oracle"], ref)
                    if d is not None:
                        self.stats["oracle_mismatch"] += 1
                        if self.a.verbose:
                            log("  oracle mismatch %s: %s" % (fname, d))
            for c in cfgs:
                if c.kind == "cython":
                    continue
                got = results[c.label].get(fname)
                if got is None:
                    continue
                d = compare(ref, got)
                if d is not None:
                    diffs.setdefault(fname, []).append((c.label, d))
        if self.a.opencl and not shrinking:
            self.count_opencl(fns, name, bdir)
        if shrinking:
            return diffs
        for fname, ds in diffs.items():
            fn = next(f for f in fns if f["name"] == fname)
            self.on_difference(fn, ds)
        return diffs

    def count_opencl(self, fns, name, bdir):
        dec = opencl_decisions(self.cyocl, os.path.join(bdir, "ocl"), name)
        ran = set()
        for t in self.threads:
            tf = os.path.join(bdir, "%s_opencl_%d.trace" % (name, t))
            if os.path.exists(tf):
                with open(tf) as f:
                    for line in f:
                        try:
                            j = json.loads(line)
                        except ValueError:
                            continue
                        if j.get("impl") == "opencl":
                            ran.add((j.get("function"), j.get("line")))
        for fname, regs in dec.items():
            el = [ln for ln, d in regs if d == "opencl"]
            self.stats["ocl_regions_eligible"] += len(el)
            r = [ln for ln in el if (fname, ln) in ran]
            self.stats["ocl_regions_ran"] += len(r)
            if r:
                self.stats["ocl_functions"] += 1

    # -------------------------------------------------------- differences
    def signature(self, ds):
        lab, d = ds[0]
        kind = lab.split("@")[0]
        m = re.match(r"(outcome|exception|return|arrays)", d)
        s = [kind, m.group(1) if m else d[:20]]
        if s[1] in ("exception", "outcome"):
            s.append(re.sub(r"\d+", "N", d)[:200])
        return tuple(s)

    def on_difference(self, fn, ds):
        sig = self.signature(ds)
        self.stats["differences"] += 1
        n = self.signatures.get(sig, 0)
        self.signatures[sig] = n + 1
        log("DIFF %s [%s]: %s" % (fn["name"], ds[0][0], ds[0][1][:300]))
        if len(ds) > 1:
            log("     also: " + ", ".join(l for l, _ in ds[1:]))
        self.record(fn, ds[0][0], ds[0][1], sig, shrinkable=n < self.a.shrink_per_sig and
                    len([f for f in self.findings if f["shrunk"]]) < self.a.max_shrinks, all_labels=[l for l, _ in ds])

    def record(self, fn, label, detail, sig, shrinkable=True, all_labels=None):
        shrunk = None
        if shrinkable and not self.a.no_shrink:
            try:
                shrunk = self.shrink(fn, label)
            except Exception as e:  # noqa: BLE001
                log("  shrink failed: %r" % e)
        if shrunk == "flaky":
            # not reproduced when built and run alone: reported, not counted as a failure
            self.flaky.append((fn["name"], label, detail))
            return
        f = {"fn": shrunk[0] if shrunk else fn, "label": label, "detail": shrunk[1] if shrunk else detail,
             "sig": sig, "shrunk": bool(shrunk), "labels": all_labels or [label],
             "orig_detail": detail}
        if shrunk or sig not in {x["sig"] for x in self.findings}:
            self.save_finding(f)
        self.findings.append(f)

    # -------------------------------------------------------- shrinking
    def rebuild_and_compare(self, cands, label, tag, use_oracle=False):
        """Builds the candidates as one module and returns those that still
        differ in configuration `label` (a cython@1 and a cython@T reference)."""
        kind = label.split("@")[0]
        t = int(label.split("@")[1])
        ckind = {"noocl": "noocl", "native": "ocl", "opencl": "ocl"}.get(kind, kind)
        name = "sh%d" % self.serial
        self.serial += 1
        bdir = os.path.join(self.work, name)
        renamed = []
        for k, c in enumerate(cands):
            c = dict(c)
            c["name"] = "c%d" % k
            c["globals"] = [("g_c%d" % k,) + tuple(g[1:]) for g in c["globals"]]
            if c["globals"]:
                old = cands[k]["globals"][0][0]
                c = rename_var(c, old, "g_c%d" % k)
            c["env"] = make_env(c)
            renamed.append(c)
        self.quiet = True
        try:
            kept = self.build_all(renamed, name, bdir, kinds=(ckind,) if use_oracle else ("cython", ckind))
        finally:
            self.quiet = False
        cfg = Config(label, ckind, t, {"native": "native", "opencl": "opencl"}.get(kind))
        if not kept:
            return []
        if use_oracle:
            # the validator's serial result stands in for Cython (it agreed with
            # Cython on the program being shrunk); the final one is confirmed
            dirs = {"noocl": os.path.join(bdir, "noocl"), "ocl": os.path.join(bdir, "ocl")}
            res = run_config(cfg, dirs[ckind], name, self.specs_of(kept), bdir, self.a.timeout)
            diffs = {}
            for c in kept:
                got = res.get(c["name"])
                if got is not None and c.get("oracle"):
                    d = compare(c["oracle"], got)
                    if d is not None:
                        diffs[c["name"]] = [(label, d)]
        else:
            cfgs = [Config("cython@%d" % self.threads[0], "cython", self.threads[0])]
            if t != self.threads[0]:
                cfgs.append(Config("cython@%d" % t, "cython", t))
            cfgs.append(cfg)
            diffs = self.compare_module(kept, name, bdir, configs=cfgs, shrinking=True)
        shutil.rmtree(bdir, ignore_errors=True)
        out = []
        for c in kept:
            if c["name"] in diffs:
                k = int(c["name"][1:])
                out.append((cands[k], diffs[c["name"]][0][1]))
        return out

    def shrink(self, fn, label):
        t0 = time.time()
        log("  shrinking %s (%s) ..." % (fn["name"], label))
        # confirm alone
        r = self.rebuild_and_compare([fn], label, "confirm")
        if not r:
            log("  not reproduced alone (flaky?)")
            return "flaky"
        cur, detail = r[0]
        sig0 = self.signature([(label, detail)])
        use_oracle = bool(fn.get("oracle")) and self.a.shrink_oracle
        if use_oracle:
            o = self.rebuild_and_compare([fn], label, "confirm", use_oracle=True)
            use_oracle = bool(o) and self.signature([(label, o[0][1])]) == sig0
        last_confirmed = (cur, detail)
        rounds = 0
        budget = self.a.shrink_seconds
        if getattr(self, "deadline", None):
            budget = min(budget, max(15.0, self.deadline - time.time()))
        while rounds < self.a.shrink_rounds and time.time() - t0 < budget:
            rounds += 1
            cands = []
            for c in candidates(cur):
                c["env"] = make_env(c)
                try:
                    c["inputs"] = make_spec(c, c.get("run_shape"))
                    if not c.get("large") and not c.get("run_shape"):
                        outcome, _, bases = validate(c)
                        c["oracle"] = (outcome, bases)
                    else:
                        small = dict(c)
                        small["inputs"] = make_spec(c)
                        validate(small)
                except (Invalid, RecursionError, KeyError, IndexError, ValueError, TypeError, ZeroDivisionError):
                    continue
                except Exception:  # noqa: BLE001
                    continue
                cands.append(c)
                if len(cands) >= self.a.shrink_batch:
                    break
            if not cands:
                break
            r = [x for x in self.rebuild_and_compare(cands, label, "round", use_oracle=use_oracle)
                 if self.signature([(label, x[1])]) == sig0]
            if not r:
                break
            cur, detail = r[0]
        if use_oracle and cur is not last_confirmed[0]:
            r = [x for x in self.rebuild_and_compare([cur], label, "final")
                 if self.signature([(label, x[1])]) == sig0]
            if r:
                detail = r[0][1]
            else:
                log("  the shrunk program does not differ from Cython: keeping the original")
                cur, detail = last_confirmed
        cur["env"] = make_env(cur)
        log("  shrunk in %d rounds, %.0f s: %d lines" % (rounds, time.time() - t0,
                                                        render_function(cur, "cyocl").count("\n")))
        return cur, detail

    # -------------------------------------------------------- saving
    def save_finding(self, f):
        os.makedirs(self.found_dir, exist_ok=True)
        self.nfound += 1
        fn = dict(f["fn"])
        base = "d%03d_%s" % (self.nfound, re.sub(r"[^a-z0-9]+", "_", (f["label"].split("@")[0] + "_" +
                                                                    f["sig"][1]).lower()).strip("_"))
        fn["name"] = "f"
        if fn["globals"]:
            fn = rename_var(fn, fn["globals"][0][0], "g_f")
            fn["globals"] = [("g_f",) + tuple(fn["globals"][0][1:])]
        fn["env"] = make_env(fn)
        src, _ = render_module([fn], "cyocl")
        with open(os.path.join(self.found_dir, base + ".pyx"), "w") as fh:
            fh.write(src)
        if uses_ext(fn):
            src2, _ = render_module([fn], "cython")
            with open(os.path.join(self.found_dir, base + ".cython.pyx"), "w") as fh:
                fh.write(src2)
        spec = fn["inputs"]
        drv = DRIVER % {"spec": pprint_spec(spec), "base": base}
        with open(os.path.join(self.found_dir, base + ".py"), "w") as fh:
            fh.write(drv)
        lab = f["label"]
        kind = lab.split("@")[0]
        thr = lab.split("@")[1] if "@" in lab else "1"
        env = {"noocl": "", "native": "CYOCL_FORCE=native ", "opencl": "CYOCL_FORCE=opencl "}.get(kind, "")
        flag = "--no-opencl " if kind == "noocl" else ""
        note = ["difference: %s" % f["detail"], "configuration: %s (also: %s)" % (lab, ", ".join(f["labels"])),
                "reproduce:",
                "  build/cyocl build %s-o /tmp/r %s.pyx" % (flag, base),
                "  cd /tmp/r && OMP_NUM_THREADS=%s %spython3 %s/%s.py" % (thr, env, self.found_dir, base),
                "  (Cython reference: build %s with Cython 3 + OpenMP, same driver)" % (
                    base + (".cython.pyx" if uses_ext(fn) else ".pyx")),
                "first seen as: %s" % f["orig_detail"][:500]]
        with open(os.path.join(self.found_dir, base + ".txt"), "w") as fh:
            fh.write("\n".join(note) + "\n")
        f["path"] = os.path.join(self.found_dir, base + ".pyx")
        log("  saved %s" % f["path"])


DRIVER = '''# driver of %(base)s.pyx (tests/difftest): run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from inputs import make_inputs
import numpy as np
np.set_printoptions(threshold=60)
mod = __import__("%(base)s".split(".")[0]) if False else __import__(sys.argv[1] if len(sys.argv) > 1 else "%(base)s")
spec = %(spec)s
args, bases = make_inputs(spec)
try:
    print("return", repr(mod.f(*args)))
except Exception as e:
    print("raised", type(e).__name__, e)
for k, b in enumerate(bases):
    print("base", k, b.ravel().tolist() if b.size <= 60 else b)
'''


def pprint_spec(spec):
    return repr(spec)


def rename_var(fn, old, new):
    def sub(x):
        if isinstance(x, tuple):
            if len(x) == 2 and x[0] == "var" and x[1] == old:
                return ("var", new)
            return tuple(sub(c) for c in x)
        return x
    fn = dict(fn)
    fn["body"] = sub(fn["body"])
    fn["ret"] = tuple(new if r == old else r for r in fn["ret"])
    return fn


# ------------------------------------------------------------------ shrink candidates
def stmt_paths(body, prefix=()):
    for k, s in enumerate(body):
        p = prefix + (k,)
        yield p, s
        if s[0] == "if":
            yield from stmt_paths(s[2], p + ("then",))
            yield from stmt_paths(s[3], p + ("else",))
        elif s[0] in ("for", "while"):
            yield from stmt_paths(s[7], p + ("body",))


def replace_at(body, path, new):
    """new: list of statements replacing the one at path."""
    k = path[0]
    if len(path) == 1:
        return tuple(body[:k]) + tuple(new) + tuple(body[k + 1:])
    s = body[k]
    where = path[1]
    rest = path[2:]
    if s[0] == "if":
        if where == "then":
            s = (s[0], s[1], replace_at(s[2], rest, new), s[3])
        else:
            s = (s[0], s[1], s[2], replace_at(s[3], rest, new))
    else:
        s = s[:7] + (replace_at(s[7], rest, new),)
    return tuple(body[:k]) + (s,) + tuple(body[k + 1:])


def expr_sites(x, path=()):
    """Paths (within a statement tuple) of expression subtrees."""
    if isinstance(x, tuple) and x and isinstance(x[0], str) and x[0] in (
            "bin", "un", "call", "hcall", "cast", "cond", "idx", "sum", "var", "const", "shape", "sref"):
        yield path, x
    if isinstance(x, tuple):
        for k, c in enumerate(x):
            if isinstance(c, tuple):
                yield from expr_sites(c, path + (k,))


def set_in(x, path, new):
    if not path:
        return new
    k = path[0]
    return tuple(x[:k]) + (set_in(x[k], path[1:], new),) + tuple(x[k + 1:])


def expr_simpler(e):
    k = e[0]
    out = []
    if k == "bin":
        out += [e[2], e[3]]
    elif k in ("un",):
        out.append(e[2])
    elif k == "cast":
        out.append(e[2])
    elif k in ("call", "hcall"):
        out += list(e[2])
    elif k == "cond":
        out += [e[2], e[3]]
    if k in ("bin", "un", "call", "hcall", "cast", "cond", "idx", "var", "sum"):
        out.append(("const", 1, "int"))
        out.append(("const", 0, "int"))
    return out


def candidates(fn):
    body = fn["body"]
    paths = list(stmt_paths(body))
    # statements, biggest first (top-level blocks)
    for p, s in paths:
        yield dict(fn, body=replace_at(body, p, []))
    for p, s in paths:
        if s[0] == "if":
            yield dict(fn, body=replace_at(body, p, list(s[2])))
            if s[3]:
                yield dict(fn, body=replace_at(body, p, list(s[3])))
        if s[0] == "for" and s[6]:
            yield dict(fn, body=replace_at(body, p, [s[:6] + ((),) + s[7:]]))
        if s[0] == "for" and s[4] != 1:
            st = s[:2] + (("const", 0, "Py_ssize_t") if s[4] < 0 else s[2],
                          ("var", "n0") if s[4] < 0 else s[3], 1) + s[5:]
            yield dict(fn, body=replace_at(body, p, [st]))
    for k in range(len(fn["ret"])):
        yield dict(fn, ret=fn["ret"][:k] + fn["ret"][k + 1:])
    for d in fn["directives"]:
        dd = dict(fn["directives"])
        del dd[d]
        yield dict(fn, directives=dd)
    if fn.get("aliasing"):
        yield dict(fn, aliasing=False)
    sh = fn.get("run_shape") or fn["shape"]
    # a product nest's loops index either axis: its shape stays square
    axes = [None] if fn.get("square") and len(sh) == 2 and sh[0] == sh[1] else range(len(sh))
    for ax in axes:
        if sh[ax or 0] > 1:
            ns = [max(1, x // 2) for x in sh] if ax is None else list(sh)
            if ax is not None:
                ns[ax] = max(1, sh[ax] // 2)
            if fn.get("run_shape"):
                yield dict(fn, run_shape=ns)
            else:
                yield dict(fn, shape=ns)
    # unused parameters and locals
    text = repr(fn["body"])
    for k, p in enumerate(fn["params"]):
        if "'%s'" % p[0] not in text:
            yield dict(fn, params=fn["params"][:k] + fn["params"][k + 1:])
    used = [l for l in fn["locals"] if "'%s'" % l[0] in text or l[0] in fn["ret"]]
    if len(used) != len(fn["locals"]):
        yield dict(fn, locals=used)
    used = [v for v in fn["ivars"] if "'%s'" % v in text]
    if len(used) != len(fn["ivars"]):
        yield dict(fn, ivars=used)
    for k, p in enumerate(fn["params"]):
        if p[1] == "arr" and p[4]:
            ps = list(fn["params"])
            ps[k] = p[:4] + (False,)
            yield dict(fn, params=ps)
    # expressions
    for p, s in paths:
        for ep, e in expr_sites(s):
            if not ep or (s[0] in ("assign", "sassign") and ep == (1,)):
                continue
            for simp in expr_simpler(e):
                if simp == e:
                    continue
                yield dict(fn, body=replace_at(body, p, [set_in(s, ep, simp)]))


# ------------------------------------------------------------------ self-test
def validator_self_test():
    """The validator must reject racy and undefined programs, and accept the
    shift class (aliasing + a serial loop in a one-iteration prange)."""
    def shift_fn(trip, shape, alias=True):
        fn = {"name": "shift", "params": [("x", "arr", "double", 1, False), ("y", "arr", "double", 1, False)],
              "directives": {}, "locals": [], "globals": [], "ivars": ["i", "j", "n"], "shape": [shape],
              "large": False, "aliasing": alias, "seed": 1, "ret": (),
              "body": (("assign", ("var", "n"), "=", ("shape", "x", 0)),
                       ("for", "i", ("const", 0, "Py_ssize_t"), trip, 1, True, (),
                        (("for", "j", ("const", 1, "Py_ssize_t"), ("var", "n"), 1, False, (),
                          (("assign", ("idx", "y", (("var", "j"),)), "=",
                            ("bin", "+", ("idx", "x", (("bin", "-", ("var", "j"), ("const", 1, "Py_ssize_t")),)),
                             ("const", 1.0, "double"))),)),)),)}
        fn["env"] = make_env(fn)
        # both arguments: the same view of one zero array (shift(a, a))
        fn["inputs"] = {"bases": [("float64", (shape,), "C", ("float", 0, 0, 1), 1)],
                        "args": [("arr", 0, ((0, shape, 1),)), ("arr", 0, ((0, shape, 1),))]}
        return fn
    ok = True
    out, it, bases = validate(shift_fn(("const", 1, "Py_ssize_t"), 50))
    if not np.array_equal(bases[0], np.arange(50.0)):
        log("validator self-test: shift(a, a) should give arange")
        ok = False
    try:
        validate(shift_fn(("var", "n"), 50))
        log("validator self-test: shift with n iterations (a race) was accepted")
        ok = False
    except Invalid:
        pass
    ovf = {"name": "o", "params": [("x", "arr", "int", 1, False)], "directives": {}, "locals": [("v", "int", 0)],
           "globals": [], "ivars": [], "shape": [3], "large": False, "aliasing": False, "seed": 1, "ret": ("v",),
           "body": (("assign", ("var", "v"), "=", ("bin", "*", ("idx", "x", (("const", 0, "Py_ssize_t"),)),
                                                   ("const", 2**30, "int"))),)}
    ovf["env"] = make_env(ovf)
    ovf["inputs"] = {"bases": [("intc", (3,), "C", ("int", 5, 5), 1)], "args": [("arr", 0, ((0, 3, 1),))]}
    # signed overflow wraps (-fwrapv on every side); of constants, which
    # Cython folds with Python's ints, it is rejected
    out, _, _ = validate(ovf)
    if out != ("ret", (5 * 2**30 - 2**32,)):
        log("validator self-test: 5 * 2**30 in int gave %r, not the wrapped %d" % (out, 5 * 2**30 - 2**32))
        ok = False
    ovf["body"] = (("assign", ("var", "v"), "=", ("bin", "*", ("const", 5, "int"), ("const", 2**30, "int"))),)
    try:
        validate(ovf)
        log("validator self-test: signed overflow of constants was accepted")
        ok = False
    except Invalid:
        pass
    log("validator self-test: %s" % ("ok" if ok else "FAILED"))
    return ok


def self_test(a):
    """A known-wrong implementation must be detected and shrunk: the 'cyocl'
    side of this test is Cython itself built from a mutated source (one
    statement computes + 2.0 instead of + 1.0), so the tester must report the
    difference and shrink the function around that statement."""
    if not validator_self_test():
        return 1
    class Mut(Tester):
        def build_all(self, fns, name, bdir, kinds=("cython", "noocl", "ocl")):
            fns = Tester.build_all(self, fns, name, bdir, kinds=("cython",))
            if not fns:
                return fns
            src, _ = render_module(fns, "cython")
            mut = src.replace("a0[i0] = (a0[i0] + 1.0)", "a0[i0] = (a0[i0] + 2.0)")
            for k in kinds:
                if k != "cython":
                    r = build_cython(mut, os.path.join(bdir, k), name, self.a.cython_opt)
                    assert r[0] == 0, r[1]
            return fns
    a.opencl = False
    a.threads = "1,3"
    t = Mut(a)
    t.a.shrink_seconds = 300
    fn = {"name": "f0_0", "params": [("a0", "arr", "double", 1, False), ("a1", "arr", "int", 1, False),
                                     ("s0", "scalar", "long")],
          "directives": {}, "locals": [("v0", "double", 0.0), ("v1", "long", 0)], "globals": [],
          "ivars": ["n0", "i0", "i1"], "shape": [9], "large": False, "aliasing": False, "seed": 5,
          "body": (("assign", ("var", "n0"), "=", ("shape", "a0", 0)),
                   ("assign", ("var", "v1"), "=", ("bin", "*", ("var", "s0"), ("const", 3, "long"))),
                   ("for", "i0", ("const", 0, "Py_ssize_t"), ("var", "n0"), 1, True, (("schedule", "static"),),
                    (("assign", ("var", "v0"), "=", ("bin", "*", ("idx", "a1", (("var", "i0"),)), ("const", 2.0, "double"))),
                     ("if", ("bin", ">", ("var", "v0"), ("const", 100.0, "double")),
                      (("assign", ("idx", "a1", (("var", "i0"),)), "=", ("const", 0, "int")),), ()),
                     ("assign", ("idx", "a0", (("var", "i0"),)), "=", ("bin", "+", ("idx", "a0", (("var", "i0"),)), ("const", 1.0, "double"))),
                     )),),
          "ret": ("v1",)}
    fn["env"] = make_env(fn)
    fn["inputs"] = make_spec(fn)
    outcome, _, bases = validate(fn)
    fn["oracle"] = (outcome, bases)
    bdir = os.path.join(t.work, "selftest")
    kept = t.build_all([fn], "st0", bdir)
    diffs = t.compare_module(kept, "st0", bdir)
    ok = bool(diffs) and t.findings and t.findings[0]["shrunk"]
    if ok:
        small = t.findings[0]["fn"]
        ok = len(list(stmt_paths(small["body"]))) < len(list(stmt_paths(fn["body"])))
        log(render_function(small, "cyocl"))
    log("self-test: %s" % ("difference detected and shrunk" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--count", type=int, help="number of generated functions")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--opencl", action="store_true", help="also CYOCL_FORCE=opencl")
    ap.add_argument("--threads", default="1,3,33")
    ap.add_argument("--keep", help="work directory (kept)")
    ap.add_argument("--found", help="where reproducers go (default KEEP/found)")
    ap.add_argument("--batch", type=int, default=60, help="functions per module")
    ap.add_argument("--cyocl")
    ap.add_argument("--cython-opt", default="-O0", help="C optimisation of the Cython reference")
    ap.add_argument("--noocl-opt", default="1", help="cyocl -O of the --no-opencl build (the default "
                    "build, run native and OpenCL, always uses cyocl's default -O3)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=150)
    ap.add_argument("--large", type=float, default=0.03, help="share of large 1-D functions")
    ap.add_argument("--no-ext", action="store_true", help="no cyocl slice expressions")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--shrink-per-sig", type=int, default=1)
    ap.add_argument("--max-shrinks", type=int, default=6)
    ap.add_argument("--shrink-rounds", type=int, default=40)
    ap.add_argument("--shrink-seconds", type=float, default=150)
    ap.add_argument("--no-shrink-oracle", dest="shrink_oracle", action="store_false",
                    help="shrink against Cython builds instead of the validator's result")
    ap.add_argument("--shrink-batch", type=int, default=30)
    ap.add_argument("--keep-builds", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1 << 31)
    if not a.cyocl:
        for c in (os.path.join(ROOT, "build", "cyocl"), shutil.which("cyocl")):
            if c and os.access(c, os.X_OK):
                a.cyocl = os.path.abspath(c)
                break
    if not a.cyocl:
        log("cannot find cyocl (build it, or --cyocl PATH)")
        log("0 passed, 1 failed")
        return 1
    try:
        import Cython  # noqa: F401
    except ImportError:
        log("Cython is not installed in %s: skipped" % sys.executable)
        return 77
    if a.self_test:
        return self_test(a)
    if a.seconds is None and a.count is None:
        a.seconds = 60
    t = Tester(a)
    log("difftest: seed %d, cyocl %s, threads %s%s, work %s" % (a.seed, a.cyocl, a.threads,
                                                            ", opencl" if a.opencl else "", t.work))
    t0 = time.time()
    t.deadline = t0 + a.seconds if a.seconds is not None else None
    while True:
        if a.count is not None and t.stats["programs"] >= a.count:
            break
        if a.seconds is not None and time.time() - t0 >= a.seconds:
            break
        n = a.batch
        if a.count is not None:
            n = min(n, a.count - t.stats["programs"])
        if a.seconds is not None:
            # the first batch of a short run is smaller, so that it ends in time
            el = time.time() - t0
            if t.serial == 0 and a.seconds < 120:
                n = min(n, 25)
        t.batch(n)
        s = t.stats
        log("batch %d: %d programs, %d compared, %d differences, %d rejected by the validator, "
            "%d nondeterministic, %.0f s" % (t.serial, s["programs"], s["compared"], s["differences"],
                                            s["rejected"], s["nondet"], time.time() - t0))
    el = time.time() - t0
    s = t.stats
    log("")
    log("seed %d; %.0f s; %.1f programs/minute" % (a.seed, el, s["programs"] * 60.0 / max(el, 1)))
    log("stats: " + json.dumps(s))
    log("time: " + json.dumps({k: round(v, 1) for k, v in t.times.items()}))
    if t.limits:
        log("cyocl limitations (clean 'not supported' errors): " + json.dumps(t.limits))
    if t.reject_reasons:
        log("validator rejections: " + json.dumps(dict(sorted(t.reject_reasons.items(), key=lambda x: -x[1])[:12])))
    for f in t.findings:
        log("FINDING [%s] %s%s" % (f["label"], f["detail"][:300], ("  -> " + f["path"]) if f.get("path") else ""))
    for name, lab, det in t.flaky:
        log("UNCONFIRMED [%s] %s: %s (not reproduced alone)" % (lab, name, det[:200]))
    nd = len(t.findings)
    log("difftest: %d programs, %d differences" % (s["programs"], nd))
    log("%d passed, %d failed" % (s["compared"] - s["differences"], nd))
    return 1 if nd else 0


if __name__ == "__main__":
    sys.exit(main())
