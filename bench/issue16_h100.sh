#!/usr/bin/env bash
# Issue 16's H100 figures in one device call, each beside clref and CuPy
# (bench/issue16.py says what runs; docs/benchmarks.md, "Issue 16's H100
# figures in one run"; docs/benchmarks/h100-issue16/).  From the repository
# root, with the shared suite at $CYOCL_SHARED (default ../shared) and the
# outputs under $OUT:
#
#   OUT=DIR bash bench/issue16_h100.sh [issue16.py's options, e.g. --small]
#
# Builds cyocl first (Release, no tests); CYOCL_DEVICE and REF_PLATFORM
# default to NVIDIA; TIME_LIMIT (default 520) bounds build and parts together.
set -euo pipefail
OUT=${OUT:?set OUT to the output directory}
start=$(date +%s)
export CYOCL_SHARED=${CYOCL_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
export CYOCL_CONFORMANCE=$CYOCL_SHARED/conformance
export CYOCL_DEVICE=${CYOCL_DEVICE:-NVIDIA} REF_PLATFORM=${REF_PLATFORM:-NVIDIA}
if command -v nvidia-smi >/dev/null && ! grep -qs . /etc/OpenCL/vendors/nvidia.icd; then
    mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
mkdir -p "$OUT"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCYOCL_TESTS=OFF >/dev/null
cmake --build build >/dev/null
built=$(date +%s)
{
    echo "$(date -u "+%Y-%m-%d %H:%M UTC"), ${CYOCL_REV:-$(git rev-parse --short HEAD 2>/dev/null || echo "?")}," \
         "build $((built - start)) s"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader
    build/cyocl devices
    python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1
} > "$OUT/machine.txt" 2>&1 || true
cat "$OUT/machine.txt"
python3 bench/issue16.py --out "$OUT" --time-limit $(( ${TIME_LIMIT:-520} - (built - start) )) \
    --note "\`bash bench/issue16_h100.sh $*\`: $(head -1 "$OUT/machine.txt")$(command -v nvidia-smi >/dev/null &&
        echo "; $(sed -n 2p "$OUT/machine.txt")")" "$@"
