#!/usr/bin/env bash
# Warning test: tests/warn/NAME.pyx is valid Cython that cyocl compiles (exit
# 0) with exactly the warnings its '# expect-warning: LINE:COL WORDS' header
# lines name (WORDS: a substring of the message), no more, no fewer.
#
#   check.sh CYOCL NAME WORKDIR
set -euo pipefail
cyocl=$1 name=$2 work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
cd "$here"
set +e
"$cyocl" compile -o "$work/$name.c" "$name.pyx" 2>"$work/$name.stderr"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
    echo "FAIL $name: cyocl compile exited $rc"; cat "$work/$name.stderr"; exit 1
fi
want=$(grep -c '^# expect-warning: ' "$name.pyx" || true)
got=$(grep -c "^$name.pyx:[0-9]*:[0-9]*: warning: " "$work/$name.stderr" || true)
status=0
while IFS= read -r line; do
    pos=${line%% *} words=${line#* }
    if ! grep -F -- "$name.pyx:$pos: warning: " "$work/$name.stderr" | grep -qiF -- "$words"; then
        echo "FAIL $name: no warning at $pos containing '$words'"; status=1
    fi
done < <(sed -n 's/^# expect-warning: //p' "$name.pyx")
if [[ $got -ne $want ]]; then
    echo "FAIL $name: $got warnings, $want expected"; status=1
fi
[[ $status -eq 0 ]] || { cat "$work/$name.stderr"; exit 1; }
echo "PASS $name ($want warnings)"
