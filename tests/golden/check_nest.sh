#!/usr/bin/env bash
# Golden test of the loop-nest analysis (ir/loops.c): compile
# tests/golden/NAME.pyx with `cyocl compile --dump-ir` and compare its
# region, loop and access lines with NAME.nest.expected.
#
#   check_nest.sh CYOCL NAME WORKDIR
#
# CYOCL_UPDATE_GOLDEN=1 rewrites the expected file from the output.
set -euo pipefail
cyocl=$1 name=$2 work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
got="$work/$name.nest"
cd "$here"
set +e
"$cyocl" compile --dump-ir -o "$work/$name.nest.c" "$name.pyx" >"$work/$name.ir" 2>"$work/$name.nest.stderr"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
    echo "FAIL $name: cyocl compile exited $rc"
    cat "$work/$name.nest.stderr"
    exit 1
fi
grep -E '^ *(region [0-9]+ |loop |access |alias |work |writes-all |loops deeper)' "$work/$name.ir" >"$got" || true
if [[ ${CYOCL_UPDATE_GOLDEN:-} == 1 ]]; then
    cp "$got" "$name.nest.expected"
    echo "updated $name.nest.expected"
fi
if [[ ! -f $name.nest.expected ]]; then
    echo "FAIL $name: no $name.nest.expected (create it with CYOCL_UPDATE_GOLDEN=1 ctest -L golden)"
    exit 1
fi
if ! diff -u "$name.nest.expected" "$got"; then
    echo "FAIL $name: output differs from $name.nest.expected"
    echo "(if the change is intended: CYOCL_UPDATE_GOLDEN=1 ctest --test-dir build -L golden)"
    exit 1
fi
echo "PASS $name"
