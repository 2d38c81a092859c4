#!/usr/bin/env bash
# Fuzz smoke test: runs the frontend fuzzer for a short while on a corpus
# seeded from every .pyx in the tree and in the conformance suite.
#
#   smoke.sh FUZZER WORKDIR SOURCE_ROOT [SECONDS]
set -euo pipefail
fuzzer=$1 work=$2 root=$3 secs=${4:-30}
corpus=$work/corpus
artifacts=$work/artifacts
mkdir -p "$corpus" "$artifacts"

# Seeds are copied (the fuzzer adds its own finds to the corpus directory,
# and must not write into the source tree); names are flattened paths.
n=0
while IFS= read -r -d '' f; do
    rel=${f#"$root"/}
    cp "$f" "$corpus/seed_${rel//\//_}"
    n=$((n + 1))
done < <(find "$root/examples" "$root/tests/e2e" "$root/tests/golden" "$root/tests/real" "$root/tests/conformance" \
              "$root/../shared/conformance" \( -name '*.pyx' -o -name '*_pure.py' \) -type f -print0 2>/dev/null)
# Generated seeds (issue 15): long left-leaning chains, beyond and just
# within the parser's expression height limit (1000), and a large file of
# many small functions, so that mutations explore deep trees and big inputs.
python3 - "$corpus" "$root/tests/perf/compile_scaling.py" <<'PY'
import os, sys, importlib.util
corpus, gen = sys.argv[1], sys.argv[2]
def chain(t, op, n): return (" %s " % op).join([t] * n)
seeds = {}
for op in ("+", "*", "and", "or", "-", "<"):
    for n in (20000, 997):
        seeds["chain_%s_%d" % ({"+": "add", "*": "mul", "-": "sub", "<": "lt"}.get(op, op), n)] = \
            "def f(int x):\n    return %s\n" % chain("x", op, n)
        if op in ("and", "or"):
            seeds["chain_%s_bint_%d" % (op, n)] = "def f(int x):\n    return %s\n" % chain("x > 0", op, n)
seeds["prange_sum_20000"] = ("from cython.parallel import prange\ndef f(double[:] a, double[:] b):\n"
                             "    cdef Py_ssize_t i\n    for i in prange(a.shape[0], nogil=True):\n"
                             "        b[i] = %s\n" % chain("a[i]", "+", 20000))
seeds["prange_sum_490"] = seeds["prange_sum_20000"].replace(chain("a[i]", "+", 20000), chain("a[i]", "+", 490))
seeds["subscripts_997"] = "def f(a):\n    return a%s\n" % ("[0]" * 997)
spec = importlib.util.spec_from_file_location("scaling", gen)
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
seeds["many_functions_256k"] = m.generate(256 * 1024)[0]
for k, v in seeds.items():
    with open(os.path.join(corpus, "gen_%s.pyx" % k), "w") as f:
        f.write(v)
PY
n=$((n + $(ls "$corpus"/gen_*.pyx | wc -l)))
echo "fuzz smoke: $n seed files, $secs s"

"$fuzzer" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -max_len=1048576 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus"
