#!/usr/bin/env bash
# Rerunnable benchmark for the fleet launch check (issue 12; results in
# docs/performance.md). In one run, on warm page cache, over the same 96
# files (96 x 64 MiB = 6 GiB of random data, a checkpoint-like shard set):
#   (a) `host check --sizes-only` against `stat` of the same 96 files
#   (b) `host check --full` against `openssl dgst -sha256` as nproc parallel jobs
#   (c) `manifest --partition K/N` with N = 1 and N = 2 processes (run
#       concurrently), against a single `manifest` run; the merged digest is
#       checked against the single-run digest.
# Each command runs REPS times (default 3); the best wall time is reported.
#
# Usage: scripts/bench-fleet.sh [DATA_DIR]   (default target/bench-fleet)
# Needs ~6.1 GiB of disk and RAM for the page cache (SHARD_MIB=64 to change).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-target/bench-fleet}
reps=${REPS:-3}
mib=${SHARD_MIB:-64}
cargo build --release --quiet
pp="$PWD/target/release/proofpack --no-catalog"

mkdir -p "$data/w"
if [[ ! -f "$data/.ready-$mib" ]]; then
  echo "generating 96 x $mib MiB in $data/w" >&2
  rm -rf "$data/w"; mkdir -p "$data/w"
  for i in $(seq -w 1 96); do head -c $((mib << 20)) /dev/urandom > "$data/w/model-000$i-of-00096.safetensors"; done
  touch "$data/.ready-$mib"
fi
$pp manifest "$data/w" --format json -o "$data/w.json" 2>/dev/null
$pp key gen -o "$data/host" --force >/dev/null 2>&1 || true
cat "$data/w"/* > /dev/null   # warm the cache

best() {
  local cmd=$1 b=
  for _ in $(seq "$reps"); do
    local t0 t1
    t0=$(date +%s.%N); bash -c "$cmd" > /dev/null 2>&1; t1=$(date +%s.%N)
    b=$(python3 -c "t=$t1-$t0; b='$b'; print(t if not b or t<float(b) else b)")
  done
  printf '%.4f' "$b"
}
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "tools: $($pp --version), $(openssl version | cut -d' ' -f1-2), $(stat --version | head -1)"
echo "data: 96 files x $mib MiB; best of $reps, warm cache"
hc="$pp host check $data/w --weights $data/w.json --host bench --key $data/host.key -o $data/report.dsse.json"
t_stat=$(best "stat $data/w/* > /dev/null")
t_sizes=$(best "$hc --sizes-only")
echo "(a) stat of 96 files:                 $t_stat s"
echo "    host check --sizes-only:          $t_sizes s   ratio to stat $(ratio "$t_sizes" "$t_stat")"
t_ossl=$(best "ls $data/w/* | xargs -P$(nproc) -n1 openssl dgst -sha256")
t_full=$(best "$hc --full")
echo "(b) openssl dgst, $(nproc) parallel jobs:  $t_ossl s"
echo "    host check --full:                $t_full s   ratio to openssl $(ratio "$t_full" "$t_ossl")"
t_one=$(best "$pp manifest $data/w")
t_p1=$(best "$pp manifest $data/w --partition 1/1 -o $data/p1.json")
t_p2=$(best "$pp manifest $data/w --partition 1/2 --threads 1 -o $data/p2a.json & $pp manifest $data/w --partition 2/2 --threads 1 -o $data/p2b.json & wait")
one=$($pp manifest "$data/w" 2>/dev/null | sha256sum | cut -c1-64)
merged=$($pp manifest merge "$data/p2a.json" "$data/p2b.json" 2>/dev/null | sha256sum | cut -c1-64)
echo "(c) manifest (one process):           $t_one s"
echo "    --partition 1/1:                  $t_p1 s   ratio to one run $(ratio "$t_p1" "$t_one")"
echo "    --partition K/2, 2 processes:     $t_p2 s   ratio to one run $(ratio "$t_p2" "$t_one")"
echo "    merged digest equals the single-run digest: $([[ $one == "$merged" ]] && echo yes || echo NO)"
