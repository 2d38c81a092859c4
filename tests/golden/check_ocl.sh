#!/usr/bin/env bash
# Golden test of the OpenCL backend: compile tests/golden/NAME.pyx with
# `cyocl compile -v --emit-opencl` and compare the program with
# NAME.cl.expected and the region decisions (the `region N` lines of -v)
# with NAME.regions.expected (and, where NAME.schedules.expected exists,
# the region lines with the schedules -v prints under them, GPU and native,
# ir/plan.c).
# `cyocl compile` also checks the program
# with libclang, so a kernel that does not compile fails here.
#
#   check_ocl.sh CYOCL NAME WORKDIR
#
# CYOCL_UPDATE_GOLDEN=1 rewrites both expected files from the output.
set -euo pipefail
cyocl=$1 name=$2 work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
cl="$work/$name.cl"
err="$work/$name.ocl.stderr"
regions="$work/$name.regions"
rm -f "$cl" "$err" "$regions"

# bare file names, so the output does not depend on the checkout's location
cd "$here"
set +e
"$cyocl" compile -v -o "$work/$name.ocl.c" --emit-opencl "$cl" "$name.pyx" 2>"$err"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
    echo "FAIL $name: cyocl compile exited $rc"
    cat "$err"
    exit 1
fi
grep -E '^[^ ]+\.pyx:[0-9]+: region [0-9]+ ' "$err" >"$regions" || true
schedules="$work/$name.schedules"
grep -E '^[^ ]+\.pyx:[0-9]+: region [0-9]+ |^    (native )?schedule' "$err" >"$schedules" || true
kinds="cl regions"
[[ -f $name.schedules.expected ]] && kinds="$kinds schedules"
if grep -q 'kernels are not checked' "$err"; then
    grep 'kernels are not checked' "$err"
fi
if [[ ${CYOCL_UPDATE_GOLDEN:-} == 1 ]]; then
    cp "$cl" "$name.cl.expected"
    cp "$regions" "$name.regions.expected"
    [[ -f $name.schedules.expected ]] && cp "$schedules" "$name.schedules.expected"
    echo "updated $name.cl.expected, $name.regions.expected"
fi
status=0
for kind in $kinds; do
    exp="$name.$kind.expected"
    got=$([[ $kind == cl ]] && echo "$cl" || echo "$work/$name.$kind")
    if [[ ! -f $exp ]]; then
        echo "FAIL $name: no $exp (create it with CYOCL_UPDATE_GOLDEN=1 ctest -L golden)"
        status=1
    elif ! diff -u "$exp" "$got"; then
        echo "FAIL $name: output differs from $exp"
        echo "(if the change is intended: CYOCL_UPDATE_GOLDEN=1 ctest --test-dir build -L golden)"
        status=1
    fi
done
[[ $status -eq 0 ]] && echo "PASS $name"
exit $status
