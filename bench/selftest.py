#!/usr/bin/env python3
"""The benchmark's check can fail: bench/run.py with the native
implementation's results made wrong (1 added to each before the check) must
report a MISMATCH at every native point, in the CSV and the Markdown, and
exit 1, while numpy's points stay ok.  It runs with --rounds 2: every numpy
point must come from 2 processes, its figure the median of the two process
medians (their mean) listed in proc_medians, between proc_min_s and proc_max_s.

    python3 bench/selftest.py [--cyocl build/cyocl] [--work DIR]
"""
import argparse, csv, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(os.path.dirname(HERE), "build", "cyocl"))
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="cyocl-bench-self-")
    out = os.path.join(work, "out")
    p = subprocess.run([sys.executable, os.path.join(HERE, "run.py"), "--quick", "--kernels", "c01,c02",
                        "--impls", "native,numpy", "--corrupt", "native", "--rounds", "2", "--cyocl", a.cyocl,
                        "--out", out, "--work", os.path.join(work, "w")], capture_output=True, text=True)
    if p.returncode == 77:
        print(p.stderr.strip())
        return 77
    sys.stderr.write(p.stderr[-2000:])
    fail = []
    if p.returncode != 1:
        fail.append("exit status %d, want 1" % p.returncode)
    with open(os.path.join(out, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    native = [r for r in rows if r["impl"] == "native"]
    numpy_ = [r for r in rows if r["impl"] == "numpy"]
    if not native or any(r["status"] != "MISMATCH" for r in native):
        fail.append("native points: %s, want all MISMATCH" % sorted({r["status"] for r in native}))
    if not numpy_ or any(r["status"] != "ok" for r in numpy_):
        fail.append("numpy points: %s, want all ok" % sorted({r["status"] for r in numpy_}))
    for r in numpy_:
        try:
            meds = [float(x) for x in r["proc_medians"].split(";")]
            lo, mid, hi = float(r["proc_min_s"]), float(r["median_s"]), float(r["proc_max_s"])
            if r["procs"] != "2" or len(meds) != 2 or abs(mid - sum(meds) / 2) > 1e-3 * mid or \
                    not (lo <= mid <= hi) or abs(lo - min(meds)) > 1e-3 * lo or abs(hi - max(meds)) > 1e-3 * hi:
                raise ValueError("inconsistent")
        except (ValueError, KeyError) as e:
            fail.append("numpy %s %s %s: procs %r, proc_medians %r, median %r, spread %r-%r, want 2 processes (%s)" % (
                r["kernel"], r["size"], r["mode"], r.get("procs"), r.get("proc_medians"), r.get("median_s"),
                r.get("proc_min_s"), r.get("proc_max_s"), e))
            break
    md = open(os.path.join(out, "results.md")).read()
    if "every implementation in 2 processes" not in md or "## Process to process" not in md:
        fail.append("results.md does not say that every implementation ran in 2 processes")
    if md.count("**MISMATCH**") != len(native):
        fail.append("results.md shows %d MISMATCH cells, want %d" % (md.count("**MISMATCH**"), len(native)))
    for f_ in fail:
        print("FAIL", f_)
    print("bench self-test: %d native points reported wrong, %d numpy points ok: %s"
          % (len(native), len(numpy_), "FAILED" if fail else "passed"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
