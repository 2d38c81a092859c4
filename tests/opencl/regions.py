#!/usr/bin/env python3
"""Region decisions of the OpenCL backend on the conformance suite.

Runs `cyocl compile -v --emit-opencl` on every case and checks, per case,
which parallel regions get an OpenCL kernel and why the others stay
native.  `cyocl compile` checks each program with libclang, so a kernel
that does not compile fails here too; a second pass checks the programs
with clcheck.c's fallback declarations (a libclang without opencl-c.h).
Also: the note when libclang is missing, and --no-opencl.

    regions.py --cyocl build/cyocl --cases ../shared/conformance/cases --out DIR

The programs are left in DIR/NAME.cl for the opencl/build test.
"""
import argparse
import os
import re
import subprocess
import sys

# Cases whose regions are not all OpenCL: line -> decision (exact text).
NATIVE = {
    "c13_parallel_block": {
        10: "native only: parallel() block (threads are explicit)",
        12: "native only: prange inside a parallel() block",
        22: "native only: with gil",
    },
    "c15_vector_expr": {
        8: "opencl",
        11: "opencl",
        14: "opencl",
        17: "opencl",
    },
    "c16_calls": {
        23: "opencl",
        28: "native only: calls recursive function fib()",
        33: "native only: calls external C function ext_scale()",
        38: "opencl",
    },
}
SKIP = set()

REGION = re.compile(r"^(\S+\.pyx):(\d+): region (\d+) \(function ([^)]*)\): (.*)$")


def compile_case(cyocl, pyx, out_c, out_cl, env=None, extra=()):
    cmd = [cyocl, "compile", "-v", "-o", out_c, *extra]
    if out_cl:
        cmd += ["--emit-opencl", out_cl]
    cmd.append(pyx)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p.returncode, p.stderr


def regions_of(stderr):
    found = {}
    for line in stderr.splitlines():
        m = REGION.match(line)
        if m:
            found[int(m.group(2))] = m.group(5)
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    failures = []
    checked = skipped_check = 0
    names = sorted(f[:-4] for f in os.listdir(a.cases) if f.endswith(".pyx") and re.match(r"c\d\d_", f))
    for name in names:
        if name in SKIP:
            continue
        pyx = os.path.join(a.cases, name + ".pyx")
        out_c = os.path.join(a.out, name + ".c")
        out_cl = os.path.join(a.out, name + ".cl")
        rc, err = compile_case(a.cyocl, pyx, out_c, out_cl)
        if rc != 0:
            failures.append(f"{name}: cyocl compile exited {rc}\n{err}")
            continue
        got = regions_of(err)
        if not got:
            failures.append(f"{name}: no region listed by -v\n{err}")
            continue
        want = NATIVE.get(name) or {line: "opencl" for line in got}
        if got != want:
            failures.append(f"{name}: regions {got}, expected {want}")
        if "kernels are not checked" in err:
            skipped_check += 1
        elif any(v == "opencl" for v in got.values()):
            checked += 1
        src = open(out_cl).read()
        # one kernel per region, plus a cyk_N_serial for a collapsed nest
        # whose views may overlap (ir/nest.c)
        ckernels = len(re.findall(r"__kernel void cyk_\d+\(", src))
        if ckernels != sum(v == "opencl" for v in got.values()):
            failures.append(f"{name}: {ckernels} kernels in the program, {got}")
        c = open(out_c).read()
        if ("cy_ocl_source" in c) != (ckernels > 0):
            failures.append(f"{name}: cy_ocl_source embedded: {'cy_ocl_source' in c}, kernels: {ckernels}")
        # the fallback declarations of clcheck.c cover the program too
        env = dict(os.environ, CYOCL_CLCHECK_OWN_DECLS="1")
        rc, err = compile_case(a.cyocl, pyx, out_c + ".own.c", None, env=env)
        if rc != 0:
            failures.append(f"{name}: with CYOCL_CLCHECK_OWN_DECLS=1: exit {rc}\n{err}")
        # --no-opencl: nothing of OpenCL in the module
        rc, err = compile_case(a.cyocl, pyx, out_c + ".noocl.c", None, extra=("--no-opencl",))
        if rc != 0 or "cy_ocl_source" in open(out_c + ".noocl.c").read():
            failures.append(f"{name}: --no-opencl: exit {rc} or OpenCL source embedded\n{err}")
        elif set(regions_of(err).values()) != {"native only: built with --no-opencl"}:
            failures.append(f"{name}: --no-opencl regions: {regions_of(err)}")

    # no libclang: the check is skipped with exactly one note
    pyx = os.path.join(a.cases, "c01_triad.pyx")
    env = dict(os.environ, CYOCL_LIBCLANG="/nonexistent/libclang.so")
    rc, err = compile_case(a.cyocl, pyx, os.path.join(a.out, "nolibclang.c"), None, env=env)
    notes = [l for l in err.splitlines() if "note:" in l]
    if rc != 0 or len(notes) != 1 or "not checked" not in notes[0]:
        failures.append(f"without libclang: exit {rc}, notes {notes}\n{err}")

    for f in failures:
        print("FAIL", f)
    print(f"{len(names) - len(SKIP)} cases, {checked} programs checked with libclang, "
          f"{skipped_check} unchecked (no libclang), {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
