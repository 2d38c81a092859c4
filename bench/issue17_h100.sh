#!/usr/bin/env bash
# Issue 17's figures on the device machine in one go (docs/benchmarks.md,
# docs/benchmarks/h100-issue17/): run from the repository root, with the
# shared suite at $CYOCL_SHARED (default ../shared) and outputs under $OUT.
#
#   bench/issue17_h100.sh gpu      # bench/run.py's table: the products, sigmoid,
#                                  # mlp, jacobi, triad beside clref, CuPy, numpy,
#                                  # native and Cython (+ the --fp-contract build)
#   bench/issue17_h100.sh figures  # gpu_plan.py (resident medians, both builds),
#                                  # jacobi's kernels against clref's, the native
#                                  # matmul against Cython + OpenMP on every core
#
# Each part builds cyocl first (Release, no tests).
set -euo pipefail
part=${1:?usage: issue17_h100.sh gpu|figures}
OUT=${OUT:?set OUT to the output directory}
export CYOCL_SHARED=${CYOCL_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
export CYOCL_CONFORMANCE=$CYOCL_SHARED/conformance
grep -qs . /etc/OpenCL/vendors/nvidia.icd || echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCYOCL_TESTS=OFF >/dev/null
cmake --build build >/dev/null
mkdir -p "$OUT"
case $part in
gpu)
    python3 bench/run.py --kernels matmul,matmul_f32,sigmoid,mlp,jacobi,triad \
        --impls opencl:NVIDIA,opencl+fma,clref:NVIDIA,cupy,numpy,native,cython \
        --out "$OUT/bench" --label "H100 (issue 17)" --time-limit "${TIME_LIMIT:-280}"
    ;;
figures)
    (set -x; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
    CYOCL_DEVICE=NVIDIA python3 bench/gpu_plan.py
    CYOCL_DEVICE=NVIDIA python3 bench/gpu_plan.py --fp-contract --only matmul,sigmoid
    # the sigmoid layer's clocks and power while it runs back to back
    nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv,noheader -lms 100 \
        > "$OUT/smi_sigmoid.csv" &
    smi=$!
    CYOCL_DEVICE=NVIDIA python3 bench/gpu_plan.py --only sigmoid --reps 2000
    kill "$smi"
    CYOCL_DEVICE=NVIDIA python3 bench/gpu_plan.py --jacobi
    CYOCL_DEVICE=NVIDIA python3 bench/jacobi_resident.py --cyocl build/cyocl --rounds 2
    cc -O2 -o "$OUT/clref" "$CYOCL_SHARED/reference/clref.c" -lOpenCL -lm
    REF_PLATFORM=NVIDIA "$OUT/clref"
    # jacobi's kernels outside Python, clref's beside them, three ways of timing
    build/cyocl compile --emit-opencl "$OUT/c03.cl" -o "$OUT/c03.c" "$CYOCL_CONFORMANCE/cases/c03_stencil2d.pyx"
    cc -O2 -o "$OUT/jacobi_kernels" bench/jacobi_kernels.c -lOpenCL
    "$OUT/jacobi_kernels" "$OUT/c03.cl" 4096 200 5 NVIDIA clref:ref:0:0 cyocl:cyk_0:256:1
    rm -f "$OUT/clref" "$OUT/jacobi_kernels" "$OUT/c03.c"
    python3 bench/native_matmul.py --n 2048
    ;;
*) echo "unknown part '$part'" >&2; exit 2 ;;
esac
