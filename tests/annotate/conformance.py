#!/usr/bin/env python3
"""`cyocl annotate` on every conformance case (the shared suite's cases/ and
errors/, and tests/conformance/cases when present).  A case that compiles
gives a page with every source line and every region `cyocl compile -v`
lists, marked with the same decision and, when native-only, the same
reason, and nothing fetched from elsewhere; also with --no-opencl (every
region native only, "built with --no-opencl").  A case with errors gives
exactly compile's diagnostics and exit status, and no page.

Usage: conformance.py --cyocl PATH --out DIR CASES_DIR...
"""
import argparse, glob, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pagelib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    fails, pages, refused = [], 0, 0
    files = sorted(f for d in a.dirs if os.path.isdir(d) for f in glob.glob(os.path.join(d, "*.pyx")))
    if not files:
        print("no cases found in", a.dirs)
        return 1
    for pyx in files:
        name = os.path.basename(pyx)[:-4]
        for flags in ([], ["--no-opencl"]):
            out = os.path.join(a.out, name + ("_noocl" if flags else "") + ".html")
            if os.path.exists(out):
                os.unlink(out)
            c = subprocess.run([a.cyocl, "compile", *flags, "-o", os.path.join(a.out, name + ".c"), pyx],
                               capture_output=True, text=True)
            r = subprocess.run([a.cyocl, "annotate", *flags, "-o", out, pyx], capture_output=True, text=True)
            what = "%s %s" % (name, " ".join(flags))
            if c.returncode != 0:
                refused += 1
                if r.returncode != c.returncode or r.stderr != c.stderr or os.path.exists(out):
                    fails.append("%s: annotate exit %d (compile %d), same diagnostics: %s, page written: %s"
                                 % (what, r.returncode, c.returncode, r.stderr == c.stderr, os.path.exists(out)))
                continue
            if r.returncode != 0 or not os.path.exists(out):
                fails.append("%s: annotate failed (%d): %s" % (what, r.returncode, r.stderr[-500:]))
                continue
            rc, expected = pagelib.regions_of(a.cyocl, pyx, flags)
            if flags:
                expected = {k: (l, f, "built with --no-opencl") for k, (l, f, _) in expected.items()}
            with open(pyx, encoding="utf-8") as f:
                nlines = len(f.read().splitlines())
            with open(out, encoding="utf-8") as f:
                page = pagelib.Page(f.read())
            bad = pagelib.check_page(page, expected, nlines)
            pages += 1
            for b in bad:
                fails.append("%s: %s" % (what, b))
            print("%s %s: %d regions (%d native only)" % ("FAIL" if bad else "ok  ", what, len(expected),
                  sum(1 for v in expected.values() if v[2] != "opencl")))
    for f in fails:
        print("FAIL", f)
    print("annotate: %d pages checked, %d cases with errors refused as compile refuses them, %d failures"
          % (pages, refused, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
