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
done < <(find "$root/examples" "$root/tests/e2e" "$root/tests/golden" "$root/../shared/conformance" \
              -name '*.pyx' -type f -print0 2>/dev/null)
echo "fuzz smoke: $n seed files, $secs s"

"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus"
