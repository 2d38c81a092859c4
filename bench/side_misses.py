#!/usr/bin/env python3
"""The points where bench/run.py's `side` (or `side2`) automatic choice was
over 1.10x the fastest forced mode of its process, worst first, with where
auto's timed calls ran (native / OpenCL) and the three medians:

    python3 bench/side_misses.py DIR/results.csv
"""
import collections
import csv
import sys


def main(path):
    pts = collections.defaultdict(dict)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok":
                pts[(r["kernel"], r["size"], r["mode"])][r["impl"]] = r
    for w in ("side", "side2"):
        miss, tot = [], 0
        for k, d in pts.items():
            if not all(w + ":" + m in d for m in ("auto", "native", "opencl")):
                continue
            tot += 1
            n, o, a = (float(d[w + ":" + m]["median_s"]) for m in ("native", "opencl", "auto"))
            if a / min(n, o) > 1.10:
                miss.append((a / min(n, o), k, d[w + ":auto"]["calls_native"], d[w + ":auto"]["calls_opencl"], n, o, a))
        if tot:
            print("%s: %d points, %d over 1.10x" % (w, tot, len(miss)))
        for m in sorted(miss, reverse=True):
            print("%.2f %s %s %s calls n/o %s/%s  native %.1f us  opencl %.1f us  auto %.1f us"
                  % (m[0], *m[1], m[2], m[3], m[4] * 1e6, m[5] * 1e6, m[6] * 1e6))


if __name__ == "__main__":
    main(sys.argv[1])
