#!/usr/bin/env bash
# Golden test: compile tests/golden/NAME.pyx and compare the C output with
# NAME.c.expected, leaving out the embedded prelude (between the
# "cyocl prelude begin/end" marker lines), which has tests of its own.
#
#   check.sh CYOCL NAME WORKDIR
#
# CYOCL_UPDATE_GOLDEN=1 rewrites NAME.c.expected from the current output.
# When NAME.stderr.expected exists the program must instead be rejected
# (exit 1) with exactly those diagnostics.
set -euo pipefail
cyocl=$1 name=$2 work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
out="$work/$name.c"
err="$work/$name.stderr"
rm -f "$out" "$err"

strip_prelude() {
    sed '/^\/\* ---- cyocl prelude begin ---- \*\/$/,/^\/\* ---- cyocl prelude end ---- \*\/$/{
/^\/\* ---- cyocl prelude begin ---- \*\/$/p
/^\/\* ---- cyocl prelude end ---- \*\/$/p
d
}' "$1"
}

# Run from the golden directory with a bare file name, so that #line
# directives and diagnostics do not depend on where the tree is checked out.
cd "$here"
set +e
"$cyocl" compile -o "$out" "$name.pyx" 2>"$err"
rc=$?
set -e

if [[ -f "$name.stderr.expected" ]]; then
    if [[ ${CYOCL_UPDATE_GOLDEN:-} == 1 ]]; then
        cp "$err" "$name.stderr.expected"
        echo "updated $name.stderr.expected"
    fi
    if [[ $rc -ne 1 ]]; then
        echo "FAIL $name: expected exit 1 (rejected), got $rc"
        cat "$err"
        exit 1
    fi
    if ! diff -u "$name.stderr.expected" "$err"; then
        echo "FAIL $name: diagnostics differ from $name.stderr.expected"
        exit 1
    fi
    echo "PASS $name (diagnostics)"
    exit 0
fi

if [[ $rc -ne 0 ]]; then
    echo "FAIL $name: cyocl compile exited $rc"
    cat "$err"
    exit 1
fi
strip_prelude "$out" >"$out.stripped"
if [[ ${CYOCL_UPDATE_GOLDEN:-} == 1 ]]; then
    cp "$out.stripped" "$name.c.expected"
    echo "updated $name.c.expected"
fi
if [[ ! -f "$name.c.expected" ]]; then
    echo "FAIL $name: no $name.c.expected (create it with CYOCL_UPDATE_GOLDEN=1 ctest -L golden)"
    exit 1
fi
if ! diff -u "$name.c.expected" "$out.stripped"; then
    echo "FAIL $name: output differs from $name.c.expected"
    echo "(if the change is intended: CYOCL_UPDATE_GOLDEN=1 ctest --test-dir build -L golden)"
    exit 1
fi
echo "PASS $name"
