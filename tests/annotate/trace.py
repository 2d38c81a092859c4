#!/usr/bin/env python3
"""`cyocl annotate --trace`: tests/annotate/traced.pyx is built, run with
CYOCL_TRACE (the dispatcher choosing, then CYOCL_FORCE=opencl when there is
an OpenCL device), and annotated with the trace: every region's calls must
be on its page — the same implementations in the same order as in the
trace, the devices, the build column, the transfers outside regions.  Then
traces that do not belong to the file are refused (another module, the
file edited since, garbage, a missing file) and no page is written; a trace
with a damaged line is read with a warning.

Usage: trace.py --cyocl PATH --work DIR
The page is left as DIR/traced.html (the browser test renders it)."""
import argparse, json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pagelib

DRIVER = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import traced as m
rng = np.random.default_rng(19)
for k in range(4):
    x = rng.random(200_000); out = np.zeros_like(x)
    m.smooth(x, out)
    assert np.allclose(out[1:-1], 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:])
    y = rng.random(200_000); y0 = y.copy()
    m.axpy(2.0, x, y)
    assert np.allclose(y, 2.0 * x + y0)
    assert np.isclose(m.norm(x), np.sqrt((x * x).sum()))
    z = x.copy(); m.twice(z)
    assert np.allclose(z, 2.0 * x)
    p = np.zeros(2); m.per_thread(x, p)
    assert np.isclose(p.sum(), x.sum())
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    w = os.path.abspath(a.work)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    fails = []

    def check(cond, what):
        print(("PASS " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    pyx = os.path.join(w, "traced.pyx")
    shutil.copy(os.path.join(HERE, "traced.pyx"), pyx)
    b = subprocess.run([a.cyocl, "build", "-o", w, pyx], capture_output=True, text=True)
    if b.returncode != 0:
        print(b.stderr)
        return 1
    trace = os.path.join(w, "trace.jsonl")
    env = dict(os.environ, CYOCL_TRACE=trace, CYOCL_CACHE_DIR=os.path.join(w, "cache"))
    env.pop("CYOCL_FORCE", None)
    device = subprocess.run([a.cyocl, "devices"], capture_output=True, text=True).returncode == 0
    runs = [{}] + ([{"CYOCL_FORCE": "opencl"}] if device else [])
    for extra in runs:
        r = subprocess.run([sys.executable, "-c", DRIVER, w], env=dict(env, **extra), capture_output=True, text=True,
                           timeout=600)
        check(r.returncode == 0, "the module runs %s" % (extra or "(dispatcher)"))
        if r.returncode:
            print(r.stderr[-2000:])
            return 1
    with open(trace) as f:
        recs = [json.loads(l) for l in f]
    regions = [r for r in recs if "event" not in r]
    syncs = [r for r in recs if "event" in r]
    print("trace: %d region lines, %d transfers, device: %s" % (len(regions), len(syncs), device))

    page_path = os.path.join(w, "traced.html")
    r = subprocess.run([a.cyocl, "annotate", "--trace", trace, "-o", page_path, pyx], capture_output=True, text=True)
    check(r.returncode == 0 and os.path.exists(page_path), "annotate --trace writes the page")
    if r.returncode:
        print(r.stderr)
        return 1
    with open(page_path, encoding="utf-8") as f:
        text = f.read()
    page = pagelib.Page(text)
    rc, expected = pagelib.regions_of(a.cyocl, pyx)
    with open(pyx) as f:
        nlines = len(f.read().splitlines())
    bad = pagelib.check_page(page, expected, nlines)
    check(not bad, "every line and region marked as compile -v says %s" % bad)
    kinds = {rid: at["data-kind"] for rid, at in page.regions.items()}
    check(sorted(kinds.values()) == ["parallel", "prange", "prange", "prange", "slice", "slice"],
          "kinds: two slice expressions, a parallel() block, three pranges: %s" % kinds)
    for rid in expected:
        want = [x["impl"] for x in regions if x["region"] == rid][:200]
        got = page.calls.get(rid, [])
        # a prange inside a parallel() block runs as part of it: no lines of its own
        check((want or rid == 5) and got == want, "region %d: its %d calls on the page, in order (%s)"
              % (rid, len(want), sorted(set(got))))
        check(page.callsum.get(rid) == len([x for x in regions if x["region"] == rid]),
              "region %d: the summary counts its calls" % rid)
        if expected[rid][2] != "opencl" and want:
            check(set(got) == {"native"}, "region %d (native only) ran natively" % rid)
    if device:
        ocl = [x for x in regions if x["impl"] == "opencl"]
        check(ocl and all(page.calls.get(x["region"]) and "opencl" in page.calls[x["region"]] for x in ocl),
              "the OpenCL calls are shown")
        dev = ocl[0]["device"] if ocl else ""
        check(dev and dev.replace('"', "&quot;") in text, "the device is named: %s" % dev)
        check(any(x["build"] in ("compiled", "cache") for x in ocl) and
              ("× built" in text and "from the kernel cache" in text), "builds and cache hits are counted")
        pred = [x for x in regions if x.get("predicted_ns")]
        check(not pred or "predicted OpenCL" in text, "predictions are shown")
    check("inside the parallel() block of region 4" in text, "the nested prange points to its block's calls")
    check(page.syncs == len(syncs), "the %d transfers outside regions are listed" % len(syncs))

    # refused traces: no page written, a clear message, a non-zero exit
    def refused(args, pyx_path, needle, what):
        out = os.path.join(w, "refused.html")
        if os.path.exists(out):
            os.unlink(out)
        p = subprocess.run([a.cyocl, "annotate", *args, "-o", out, pyx_path], capture_output=True, text=True)
        check(p.returncode != 0 and not os.path.exists(out) and needle in p.stderr,
              "%s is refused (exit %d): %s" % (what, p.returncode, p.stderr.strip()[:300]))

    other = os.path.join(w, "other_mod.pyx")
    shutil.copy(pyx, other)
    refused(["--trace", trace], other, "has no line of module 'other_mod'", "a trace of another module")
    v2 = os.path.join(w, "v2")
    os.makedirs(v2)
    with open(pyx) as f:
        src = f.read()
    with open(os.path.join(v2, "traced.pyx"), "w") as f:
        f.write("# edited since the trace was made\n\n" + src)
    refused(["--trace", trace], os.path.join(v2, "traced.pyx"), "another version of the file",
            "a trace of an older version of the file")
    fewer = os.path.join(w, "v3")
    os.makedirs(fewer)
    with open(os.path.join(fewer, "traced.pyx"), "w") as f:
        f.write(src.split("def twice")[0])
    refused(["--trace", trace], os.path.join(fewer, "traced.pyx"), "another version of the file",
            "a trace with regions the file no longer has")
    garbage = os.path.join(w, "garbage.jsonl")
    with open(garbage, "wb") as f:
        f.write(os.urandom(4096) + b"\n{\"module\": \"traced\", \"line\": [}\n")
    refused(["--trace", garbage], pyx, "is not a CYOCL_TRACE file", "garbage")
    refused(["--trace", os.path.join(w, "missing.jsonl")], pyx, "cannot read", "a missing trace")

    # a damaged line among good ones: skipped with a warning
    damaged = os.path.join(w, "damaged.jsonl")
    with open(trace) as f, open(damaged, "w") as g:
        lines = f.readlines()
        g.writelines(lines[:3] + ['{"module":"traced","line":16,"reg\n'] + lines[3:])
    out = os.path.join(w, "damaged.html")
    p = subprocess.run([a.cyocl, "annotate", "--trace", damaged, "-o", out, pyx], capture_output=True, text=True)
    check(p.returncode == 0 and "damaged.jsonl:4: 1 line that is not a trace line is skipped" in p.stderr and os.path.exists(out),
          "a damaged line is skipped with a warning: %s" % p.stderr.strip()[:200])

    print("%d failures" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
