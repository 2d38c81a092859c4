#!/usr/bin/env bash
# The OpenCL side on a machine with an NVIDIA GPU (the device machine of
# the developers' workplace, or any CUDA box with NVIDIA's OpenCL): builds
# the tree, makes NVIDIA's ICD visible, and runs what must hold there.
#
#   tools/gpu_check.sh [OUTDIR] [DIFFTEST_SECONDS]
#
# ../shared must hold the conformance suite.  Logs go to OUTDIR (default
# gpu-check/).  Exit status: non-zero when a step failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-gpu-check} secs=${2:-300}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
mkdir -p /etc/OpenCL/vendors 2>/dev/null
[[ -f /etc/OpenCL/vendors/nvidia.icd ]] || echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd 2>/dev/null
cmake -S . -B build -G Ninja -DCYOCL_WERROR=ON >/dev/null && cmake --build build >"$out/build.log" 2>&1 || {
    tail -20 "$out/build.log"; exit 1; }
build/cyocl devices | tee "$out/devices.txt"
export CYOCL_DEVICE=${CYOCL_DEVICE:-NVIDIA}
status=0
step() { # NAME COMMAND...
    local name=$1; shift
    echo "== $name"
    "$@" >"$out/$name.log" 2>&1; local rc=$?
    tail -3 "$out/$name.log"
    [[ $rc -eq 0 ]] || { echo "   ($name: exit $rc)"; status=1; }
}
step conformance python3 ../shared/conformance/run --cyocl build/cyocl
step e2e ctest --test-dir build -L e2e -j 8 --output-on-failure
step robust_fork python3 tests/robust/run.py -k fork --cyocl build/cyocl --work /tmp/gpu-rf
step difftest python3 tests/difftest/difftest.py --seconds "$secs" --opencl --jobs 14 --cyocl build/cyocl --keep /tmp/gpu-dt
exit $status
