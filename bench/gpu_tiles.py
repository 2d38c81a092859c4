#!/usr/bin/env python3
"""Shapes of the planner's tiled GPU kernel (ir/plan.c PLAN_TILE2D), timed
outside Python on one device and checked bit for bit against Cython's order.

    python3 bench/gpu_tiles.py --gen DIR [--cyocl build/cyocl]   # here: the kernels
    python3 bench/gpu_tiles.py --run DIR [--n 2048] [--platform NVIDIA] [--opts ...] [--ptx DIR]  # on the device

--gen writes c04's program (../shared/conformance/cases/c04_matmul.pyx) once
per candidate shape (CYOCL_GPU_TILE=LX,LY,RN,RM,TK,VN,VM[,DB], with and without
--fp-contract) into DIR, with DIR/list.txt; --run builds bench/gpu_tiles.c
and times every candidate's matmul (f64) and matmul_f32 kernels at n x n
(and checks each at an odd size too), one line per kernel: bit for bit
against the serial loop, or with --fp-contract against the same loop with
each update one fused multiply-add (k still increasing).
"""
import argparse, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("CYOCL_SHARED") or os.path.abspath(os.path.join(ROOT, "..", "shared"))
CASE = os.path.join(SHARED, "conformance", "cases", "c04_matmul.pyx")

# (LX, LY, RN, RM, TK, VN, VM): work-group, elements per work-item along j
# and i, k per tile, runs of adjacent elements along j and i
F64 = ["16,16,4,8,16,1,1", "16,16,4,8,16,2,2", "16,16,4,8,16,2,1", "16,16,4,8,16,1,2",
       "16,16,4,4,16,2,2", "16,16,8,4,16,2,2", "32,8,4,8,16,2,2", "16,8,4,8,32,2,2",
       "16,16,4,8,8,2,2", "16,8,4,8,16,2,2", "8,16,8,4,16,2,2", "16,16,8,8,8,2,2",
       "32,8,4,4,16,2,2", "16,16,2,8,16,2,2"]
F32 = ["16,16,8,8,16,1,1", "16,16,8,8,16,4,4", "16,16,8,8,16,2,2", "16,16,8,8,32,4,4",
       "16,16,8,8,8,4,4", "16,16,8,4,16,4,4", "16,16,4,8,16,4,4", "32,8,8,8,16,4,4",
       "8,32,8,8,16,4,4", "16,8,8,8,16,4,4", "16,16,4,4,16,4,4", "16,16,8,8,32,2,4",
       "32,8,4,8,16,4,4", "16,16,8,8,16,4,2"]
CONTRACT = {"f64": ["16,16,4,8,16,1,1", "16,16,4,8,16,2,2", "16,16,8,4,16,2,2", "16,8,4,8,32,2,2"],
            "f32": ["16,16,8,8,16,1,1", "16,16,8,8,16,4,4", "16,16,8,8,32,4,4", "32,8,8,8,16,4,4"]}


def gen(a):
    os.makedirs(a.gen, exist_ok=True)
    rows = []
    if a.shapes:
        jobs = [(s.split("=")[1], s.split("=")[0].rstrip("+"), s.split("=")[0].endswith("+"))
                for s in a.shapes.split(";")]
    else:
        jobs = [(s, "f64", False) for s in F64] + [(s, "f32", False) for s in F32]
        jobs += [(s, t, True) for t in CONTRACT for s in CONTRACT[t]]
    for shape, ty, fc in jobs:
        name = "%s_%s%s" % (ty, shape.replace(",", "_"), "_fc" if fc else "")
        cl = os.path.join(a.gen, name + ".cl")
        env = dict(os.environ, CYOCL_GPU_TILE=shape)
        cmd = [a.cyocl, "compile", "--emit-opencl", cl, CASE, "-o", os.path.join(a.gen, "tmp.c")]
        if fc:
            cmd.insert(2, "--fp-contract")
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        lx, ly, rn, rm = (int(x) for x in shape.split(",")[:4])
        kern = "cyk_0_tiled" if ty == "f64" else "cyk_1_tiled"
        if ("__kernel __attribute__((reqd_work_group_size(%d, %d, 1))) void %s(" % (lx, ly, kern)) not in open(cl).read():
            print("%s: the planner did not take shape %s" % (name, shape), file=sys.stderr)
            continue
        rows.append("%s %s %s %s %d %d %d %d %d" % (name, name + ".cl", kern, ty, lx, ly, lx * rn, ly * rm, fc))
    os.remove(os.path.join(a.gen, "tmp.c"))
    open(os.path.join(a.gen, "list.txt"), "w").write("\n".join(rows) + "\n")
    print("%d candidates in %s" % (len(rows), a.gen))


def run(a):
    exe = os.path.join(a.run, "gpu_tiles")
    subprocess.run(["cc", "-O2", "-ffp-contract=off", "-o", exe, os.path.join(HERE, "gpu_tiles.c"), "-lOpenCL", "-lm"],
                   check=True)
    bad = 0
    env = dict(os.environ, GPU_TILES_OPTS=a.opts)
    big = dict(env, GPU_TILES_ROWS=str(a.rows or a.n))
    for line in open(os.path.join(a.run, "list.txt")):
        name, cl, kern, ty, lx, ly, bn, bm, fc = line.split()
        path = os.path.join(a.run, cl)
        for n, reps in ((a.n, a.reps), (a.odd, 2)):
            # with --fp-contract every update is one fused multiply-add: checked against that order
            e = dict(big if n == a.n else env, GPU_TILES_FMA=fc)
            if a.ptx and n == a.n:
                e["GPU_TILES_PTX"] = os.path.join(a.ptx, name + ".ptx")
            r = subprocess.run([exe, path, kern, ty, str(n), lx, ly, bn, bm, str(reps), a.platform],
                               capture_output=True, text=True, timeout=120, env=e)
            out = (r.stdout + r.stderr).strip().replace(path, name)
            if r.returncode:
                bad += 1
            print(out, flush=True)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", help="write the candidates' programs into this directory")
    ap.add_argument("--run", help="time the candidates in this directory")
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--rows", type=int, help="rows of a and c at --n (default n): a batch through a layer")
    ap.add_argument("--odd", type=int, default=333, help="a second, odd size, checked on every element")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--platform", default="NVIDIA")
    ap.add_argument("--shapes", help="instead of the built-in candidates: f64=LX,LY,RN,RM,TK,VN,VM[,DB];f32=...;"
                    "f64+=... (+: with --fp-contract)")
    ap.add_argument("--ptx", help="write each kernel's device binary (PTX on NVIDIA) into this directory")
    ap.add_argument("--opts", default="", help="more OpenCL build options (NVIDIA: -cl-nv-verbose, "
                    "-cl-nv-maxrregcount=N)")
    a = ap.parse_args()
    if a.gen:
        gen(a)
    if a.run:
        sys.exit(run(a))


if __name__ == "__main__":
    main()
