#!/usr/bin/env python3
"""How much a memory-bound native time moves from one process to the next:
the same kernel, size and module timed in several fresh processes, each
module alone (as bench/run.py times every implementation) and the modules
together on the very same arrays.

    python3 bench/native_side.py --cyocl after=build/cyocl --cyocl bare=build/cyocl,--no-opencl \\
        --kernels triad,stencil,jacobi --work /tmp/ns --build-only
    python3 bench/native_processes.py /tmp/ns [--reps 3]

Modules: cython, after (a default build, CYOCL_FORCE=native), bare
(--no-opencl), after without the runtime module (`nort`: it imports no
`cyocl`, so every region runs natively with no runtime calls).  Each
process prints its medians (us); the table at the end lists every
process's figure per point, comma-separated (`mix` rows: cython/after/bare
in one process).
"""
import json, os, statistics, subprocess, sys, time, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
PTS = [("triad", 10**6), ("triad", 10**7), ("stencil", 4096**2), ("stencil", 1000**2), ("jacobi", 316**2),
       ("triad", 100), ("stencil", 100)]


def child(dirs):
    import warnings
    import numpy as np
    import kernels as K
    from native_vs_cython import load
    if os.environ.get("NORT"):
        sys.modules["cyocl"] = None   # the module warns and runs without the runtime
    warnings.simplefilter("ignore")
    out = {}
    for kn, size in PTS:
        k = K.BY_NAME[kn]
        mods = [(name, load(d, k.case)) for name, d in dirs]
        d = k.make(size, np.random.default_rng(zlib.crc32(("%s/%d" % (k.case, size)).encode())), True)
        fs = [(name, (lambda m=m: k.compiled(m, d)), []) for name, m in mods]
        for _, f, _ in fs:
            for _ in range(3):
                f()
        t0 = time.perf_counter()
        fs[0][1]()
        one = time.perf_counter() - t0
        calls = max(1, min(20000, int(0.02 / max(one, 1e-7))))
        for _ in range(7):
            for _, f, ts in fs:
                t0 = time.perf_counter()
                for _ in range(calls):
                    f()
                ts.append((time.perf_counter() - t0) / calls)
        for name, _, ts in fs:
            out["%s %d %s" % (kn, size, name)] = statistics.median(ts)
    print(json.dumps(out))


def main():
    if sys.argv[1] == "--child":
        return child([x.split("=") for x in sys.argv[2:]])
    work = sys.argv[1]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 3
    where = {"cython": work + "/cython", "after": work + "/cyocl-after", "bare": work + "/cyocl-bare"}
    runs = []

    def run(label, mods, extra=None):
        env = dict(os.environ, CYOCL_FORCE="native", **(extra or {}))
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"] +
                           ["%s=%s" % (m, where[m]) for m in mods], env=env, capture_output=True, text=True)
        if p.returncode:
            print(p.stderr[-2000:])
            return
        r = json.loads(p.stdout.strip().splitlines()[-1])
        runs.append((label, r))
        print(label, " ".join("%s=%.1f" % (k.replace(" ", ":"), v * 1e6) for k, v in r.items()), flush=True)

    for _ in range(reps):
        run("solo-cython", ["cython"])
        run("solo-after", ["after"])
        run("solo-bare", ["bare"])
        run("solo-after-nort", ["after"], {"NORT": "1"})
    run("mix", ["cython", "after", "bare"])
    run("mix-nort", ["cython", "after", "bare"], {"NORT": "1"})
    run("mix-bind", ["cython", "after", "bare"], {"OMP_PROC_BIND": "close"})
    run("solo-cython-bind", ["cython"], {"OMP_PROC_BIND": "close"})
    run("solo-after-bind", ["after"], {"OMP_PROC_BIND": "close"})
    print("---- medians over processes (us)")
    labels = []
    for lab, _ in runs:
        if lab not in labels:
            labels.append(lab)
    keys = []
    for _, r in runs:
        for k in r:
            kk = " ".join(k.split()[:2])
            if kk not in keys:
                keys.append(kk)
    print("%-18s" % "point" + "".join("%22s" % lab for lab in labels))
    for kk in keys:
        line = "%-18s" % kk
        for lab in labels:
            vals = []
            for ll, r in runs:
                if ll == lab:
                    vs = ["%.0f" % (v * 1e6) if v > 1e-5 else "%.1f" % (v * 1e6)
                          for k, v in r.items() if k.startswith(kk + " ")]
                    vals.append("/".join(vs))
            line += "%22s" % ",".join(vals)[:21]
        print(line)


if __name__ == "__main__":
    main()
