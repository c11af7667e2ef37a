#!/usr/bin/env bash
# Rerunnable benchmark for `proofpack manifest` (issue 2; results in
# docs/performance.md). In one run, on warm page cache, it times proofpack
# against reference tools over the same files:
#   (a) 8 files of 256 MiB   (b) 20,000 files of 4 KiB   (c) one 1 GiB file
# References: `openssl dgst -sha256` run as 2 parallel jobs (xargs -P2), and
# coreutils `sha256sum` (single process, and as 2 parallel jobs), `b3sum` if
# installed. Each command runs REPS times (default 3); the best wall time is
# reported, with the peak RSS of the proofpack run (GNU time). The catalog
# (and so its hash cache) is off: this measures hashing; scripts/bench-cache.sh
# measures the cache.
#
# Usage: scripts/bench-manifest.sh [DATA_DIR]   (default target/bench-manifest)
# Needs ~3.4 GiB of disk and RAM for the page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-target/bench-manifest}
reps=${REPS:-3}
cargo build --release --quiet
pp=$PWD/target/release/proofpack

mkdir -p "$data"
if [[ ! -f "$data/.ready" ]]; then
  echo "generating data in $data" >&2
  rm -rf "$data/a" "$data/b" "$data/c"; mkdir -p "$data/a" "$data/b" "$data/c"
  for i in $(seq 0 7); do head -c $((256 << 20)) /dev/urandom > "$data/a/shard-$i.bin"; done
  python3 - "$data/b" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(20000):
    d = os.path.join(root, f"d{i // 1000:02d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05d}.json"), "wb") as f:
        f.write(os.urandom(4096))
PY
  head -c $((1 << 30)) /dev/urandom > "$data/c/one.bin"
  touch "$data/.ready"
fi

# best-of-N wall time of a shell command, in seconds
best() {
  local cmd=$1 best=
  for _ in $(seq "$reps"); do
    local t0 t1
    t0=$(date +%s.%N); bash -c "$cmd" > /dev/null 2>&1; t1=$(date +%s.%N)
    best=$(python3 -c "t=$t1-$t0; b='$best'; print(t if not b or t<float(b) else b)")
  done
  printf '%.3f' "$best"
}
peak_rss_mib() {
  /usr/bin/time -f '%M' bash -c "$1 > /dev/null" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), sha_ni: $(grep -qm1 sha_ni /proc/cpuinfo && echo yes || echo no)"
echo "tools: $($pp --version), $(openssl version | cut -d' ' -f1-2), $(sha256sum --version | head -1)$(command -v b3sum >/dev/null && echo ", $(b3sum --version)")"
echo "reps: best of $reps, warm cache"
printf '\n%-6s %-34s %9s %9s\n' set tool seconds ratio
for set in a b c; do
  dir="$data/$set"
  # warm the cache
  cat "$dir"/* "$dir"/*/* > /dev/null 2>&1 || true
  case $set in
    a|c) n=1 ;;
    b) n=1000 ;;
  esac
  t_pp=$(best "$pp --no-catalog manifest -q $dir")
  t_ossl=$(best "find $dir -type f -print0 | xargs -0 -P2 -n $n openssl dgst -sha256")
  t_sum=$(best "find $dir -type f -print0 | xargs -0 sha256sum")
  t_sum2=$(best "find $dir -type f -print0 | xargs -0 -P2 -n $n sha256sum")
  rss=$(peak_rss_mib "$pp --no-catalog manifest -q $dir")
  ratio() { python3 -c "print(f'{$1/$2:.3f}')"; }
  printf '%-6s %-34s %9s %9s\n' "$set" "proofpack manifest" "$t_pp" "1.000"
  printf '%-6s %-34s %9s %9s\n' "$set" "openssl dgst -sha256 (xargs -P2)" "$t_ossl" "$(ratio "$t_ossl" "$t_pp")"
  printf '%-6s %-34s %9s %9s\n' "$set" "sha256sum (1 process)" "$t_sum" "$(ratio "$t_sum" "$t_pp")"
  printf '%-6s %-34s %9s %9s\n' "$set" "sha256sum (xargs -P2)" "$t_sum2" "$(ratio "$t_sum2" "$t_pp")"
  if command -v b3sum > /dev/null; then
    t_b3=$(best "find $dir -type f -print0 | xargs -0 b3sum")
    printf '%-6s %-34s %9s %9s\n' "$set" "b3sum" "$t_b3" "$(ratio "$t_b3" "$t_pp")"
  fi
  echo "$set: proofpack peak RSS ${rss} MiB; ratio = reference time / proofpack time (>1: proofpack faster)"
done
