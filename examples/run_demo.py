#!/usr/bin/env python3
"""The cyocl demo: a 2-D heat-equation solver (examples/heat.pyx) compiled
by cyocl, timed against the same computation in numpy, and checked against it.

  run_demo.py [--build-dir DIR] [--cyocl PATH] [--quick]

The module is imported from DIR (default build/examples, where `./dev demo`
builds it); with --cyocl the script builds it there first.
"""
import argparse, os, subprocess, sys, time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def numpy_solve(u0, alpha, steps):
    u = np.array(u0, dtype=np.float64)
    change = 0.0
    for _ in range(steps):
        d = alpha * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        u[1:-1, 1:-1] += d
        change = float(np.sqrt(np.sum(d * d)))
    return u, change


def best_of(fn, repeat):
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "examples"))
    ap.add_argument("--cyocl")
    ap.add_argument("--quick", action="store_true", help="small grid, for the test suite")
    a = ap.parse_args()

    if a.cyocl:
        os.makedirs(a.build_dir, exist_ok=True)
        subprocess.run([a.cyocl, "build", "-o", a.build_dir, os.path.join(HERE, "heat.pyx")],
                       check=True)
    sys.path.insert(0, a.build_dir)
    try:
        import heat
    except ImportError as e:
        print("cannot import the heat module from %s (%s); build it with ./dev demo"
              % (a.build_dir, e))
        return 1

    n, m, steps, repeat = (96, 130, 25, 1) if a.quick else (1000, 1000, 200, 3)
    alpha = 0.2
    u0 = np.zeros((n, m))
    u0[0, :] = 100.0                  # a hot top edge
    u0[n // 3: n // 2, m // 3: m // 2] = 50.0  # and a warm patch inside

    t_cy, (u_cy, ch_cy) = best_of(lambda: heat.solve(u0, alpha, steps), repeat)
    t_np, (u_np, ch_np) = best_of(lambda: numpy_solve(u0, alpha, steps), repeat)

    err = float(np.max(np.abs(u_cy - u_np)))
    ok = err <= 1e-9 * max(1.0, float(np.max(np.abs(u_np)))) and abs(ch_cy - ch_np) <= 1e-6 * max(1.0, ch_np)
    ok = ok and np.array_equal(u0[0], np.full(m, 100.0))  # the input is left alone
    threads = os.environ.get("OMP_NUM_THREADS") or str(os.cpu_count())
    print("2-D heat equation, %d x %d grid, %d steps (alpha %.2f), %s thread(s)" % (n, m, steps, alpha, threads))
    print("  cyocl (native, OpenMP) %9.2f ms" % (t_cy * 1e3))
    print("  numpy                  %9.2f ms   (speed-up %.1fx)" % (t_np * 1e3, t_np / t_cy if t_cy > 0 else float("inf")))
    print("  max |cyocl - numpy| = %.3g, last step change %.6g (numpy %.6g)" % (err, ch_cy, ch_np))
    print("  centre temperature %.4f, mean %.4f" % (u_cy[n // 2, m // 2], float(u_cy.mean())))
    print("result: " + ("OK, matches numpy" if ok else "MISMATCH against numpy"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
