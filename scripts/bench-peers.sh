#!/usr/bin/env bash
# Benchmark of `proofpack results check` (issue 14) against Python recomputing
# the same fields with numpy (tests/peers_reference.py recompute: json.load,
# then vLLM's calculate_metrics over the lists), on one generated vllm bench
# serve file of N requests (default 1,000,000, 8 output tokens each: 7 ITL
# gaps per request), in the same run. Best of 3, warm page cache; peak RSS from
# GNU time. Usage: scripts/bench-peers.sh [N] [OUTPUT_TOKENS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
len=${2:-8}
py=${PROOFPACK_TEST_PYTHON:-target/pyenv/bin/python}
dir=target/bench-peers
mkdir -p "$dir"
file="$dir/vllm-$n-$len.json"
bin=${PROOFPACK_BIN:-target/release/proofpack}
[[ -x "$bin" ]] || cargo build --release
if [[ ! -f "$file" ]]; then
  echo "generating $file" >&2
  "$py" tests/peers_reference.py bench-gen "$file" "$n" "$len"
fi
echo "file: $file, $(stat -c %s "$file") bytes, $n requests"
"$py" -c 'import numpy, sys; print("numpy", numpy.__version__, "python", sys.version.split()[0])'
"$bin" --version
best() { # best of 3: prints "seconds peak_kib"
  local b="" m="" t
  t=$(mktemp)
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$t" "$@" >/dev/null 2>&1
    local s k
    read -r s k < "$t"
    if [[ -z "$b" ]] || awk -v a="$s" -v b="$b" 'BEGIN{exit !(a<b)}'; then b=$s; m=$k; fi
  done
  rm -f "$t"
  echo "$b $m"
}
# Both must agree with the file before timing counts.
"$bin" --no-catalog results check "$file" | tail -n 1
"$py" tests/peers_reference.py recompute "$file"
read -r ps pk < <(best "$bin" --no-catalog results check "$file")
read -r ys yk < <(best "$py" tests/peers_reference.py recompute "$file")
printf '%-44s %9s %12s %9s\n' tool seconds "peak RSS" ratio
printf '%-44s %9s %9.1f MiB %9s\n' "proofpack results check" "$ps" "$(echo "$pk/1024" | bc -l)" 1.000
printf '%-44s %9s %9.1f MiB %9.3f\n' "python json.load + numpy (same fields)" "$ys" "$(echo "$yk/1024" | bc -l)" "$(echo "$ys/$ps" | bc -l)"
