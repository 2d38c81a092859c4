#!/usr/bin/env python3
"""Do bench/run.py's verdicts settle with more processes?  From the
results.csv of a run with --rounds N (its proc_medians), the automatic
choice's verdict at each point (within 1.10x of the fastest cyocl option:
native, opencl:*) computed from disjoint groups of k rounds each (the
median of the group's process medians per implementation), and how often
two groups disagree, for k = 1 .. N/2.

    python3 bench/rounds_split.py DIR/results.csv [--which auto,auto2] [--limit 1.10]
"""
import argparse, csv, itertools, statistics, sys


def load(path):
    pts = {}   # (kernel, size, mode) -> impl -> [median per round or None]
    for r in csv.DictReader(open(path, newline="")):
        if r["status"] not in ("ok", "unchecked") or not r.get("proc_medians"):
            continue
        ms = [float(x) if x else None for x in r["proc_medians"].split(";")]
        pts.setdefault((r["kernel"], int(r["size"]), r["mode"]), {})[r["impl"]] = ms
    return pts


def verdicts(pts, which, rounds, limit):
    out = {}
    for key, t in pts.items():
        def med(impl):
            v = [t[impl][i] for i in rounds if i < len(t[impl]) and t[impl][i] is not None]
            return statistics.median(v) if v else None
        if which not in t or med(which) is None:
            continue
        opts = [m for m in (med(i) for i in t if i == "native" or (i.startswith("opencl:") and
                                                                     not i.endswith("+fma"))) if m is not None]
        if opts:
            out[key] = med(which) / min(opts)
    return {k: v <= limit for k, v in out.items()}, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--which", default="auto,auto2")
    ap.add_argument("--limit", type=float, default=1.10)
    a = ap.parse_args()
    pts = load(a.csv)
    n = max(len(ms) for t in pts.values() for ms in t.values())
    print("%s: %d points, %d rounds" % (a.csv, len(pts), n))
    for which in a.which.split(","):
        for k in range(1, n // 2 + 1):
            groups = [list(range(g * k, g * k + k)) for g in range(n // k)]
            flips, total, share = 0, 0, []
            for g1, g2 in itertools.combinations(groups, 2):
                v1, _ = verdicts(pts, which, g1, a.limit)
                v2, _ = verdicts(pts, which, g2, a.limit)
                common = set(v1) & set(v2)
                flips += sum(1 for p in common if v1[p] != v2[p])
                total += len(common)
            for g in groups:
                v, _ = verdicts(pts, which, g, a.limit)
                share.append(100.0 * sum(v.values()) / max(len(v), 1))
            print("  %-6s groups of %d round(s): verdicts differ at %4.1f%% of points between two groups "
                  "(%d pairs); within %.2fx: %s%%" % (which, k, 100.0 * flips / max(total, 1),
                                                     len(groups) * (len(groups) - 1) // 2, a.limit,
                                                     " / ".join("%.0f" % s for s in share)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
