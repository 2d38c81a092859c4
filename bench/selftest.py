#!/usr/bin/env python3
"""The benchmark's check can fail: bench/run.py with the native
implementation's results made wrong (1 added to each before the check) must
report a MISMATCH at every native point, in the CSV and the Markdown, and
exit 1, while numpy's points stay ok.

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
                        "--impls", "native,numpy", "--corrupt", "native", "--cyocl", a.cyocl,
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
    md = open(os.path.join(out, "results.md")).read()
    if md.count("**MISMATCH**") != len(native):
        fail.append("results.md shows %d MISMATCH cells, want %d" % (md.count("**MISMATCH**"), len(native)))
    for f_ in fail:
        print("FAIL", f_)
    print("bench self-test: %d native points reported wrong, %d numpy points ok: %s"
          % (len(native), len(numpy_), "FAILED" if fail else "passed"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
