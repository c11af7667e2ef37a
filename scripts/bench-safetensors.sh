#!/usr/bin/env bash
# Rerunnable benchmark for the safetensors structure check (issue 13; results
# in docs/performance.md). It generates a checkpoint of SHARDS (default 96)
# sparse shards with TENSORS (default 2,400) tensors each, laid out like an
# MoE checkpoint (per expert: F8_E4M3 gate/up/down weights and their F32
# block scales; about SHARD_MIB MiB of data per shard, default 1024, all of
# it a hole), its model.safetensors.index.json and a JSON manifest, then
# times, in one run on warm page cache:
#   reference  find -printf %s              stat of every shard, nothing else
#   proofpack  check --sizes-only --no-structure   the v1 launch check
#   proofpack  check --sizes-only           + every header read and checked,
#                                            + the header digests
#   proofpack  shards check --index         + the index against the headers
#   reference  check (full)                 SHA-256 of every byte (REPS_FULL runs)
# Each fast command runs REPS times (default 5), best wall time kept; ratio =
# reference time / proofpack time (above 1: proofpack faster), against the
# stat reference for the launch-check rows and against the full hash for the
# structure check. Peak RSS from GNU time.
#
# Usage: scripts/bench-safetensors.sh [DATA_DIR]   (default target/bench-safetensors)
# Needs python3, GNU time, and a few MB of disk (the data is sparse); the
# full hash reads SHARDS * SHARD_MIB MiB of zeros through the page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-target/bench-safetensors}
reps=${REPS:-5}
reps_full=${REPS_FULL:-1}
shards=${SHARDS:-96}
tensors=${TENSORS:-2400}
shard_mib=${SHARD_MIB:-1024}
cargo build --release --quiet
pp=${CARGO_TARGET_DIR:-$PWD/target}/release/proofpack
root=$data/model
stamp="$data/.ready-$shards-$tensors-$shard_mib"
if [[ ! -f "$stamp" ]]; then
  echo "generating $shards sparse shards in $root" >&2
  rm -rf "$data"; mkdir -p "$root"
  python3 - "$root" "$shards" "$tensors" "$shard_mib" <<'PY'
import json, os, struct, sys
root, shards, tensors, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
experts = max(1, tensors // 6)
cols = 2048
# rows per projection so that an expert's three F8 weights fill the shard
rows = max(128, (mib << 20) // (3 * cols * experts) // 128 * 128)
weight_map, total = {}, 0
for s in range(shards):
    name = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
    entries = []
    for e in range(experts):
        for proj in ("gate_proj", "up_proj", "down_proj"):
            p = f"model.layers.{s}.mlp.experts.{e}.{proj}"
            entries.append((p + ".weight", "F8_E4M3", [rows, cols], rows * cols))
            sr, sc = rows // 128, cols // 128
            entries.append((p + ".weight_scale_inv", "F32", [sr, sc], 4 * sr * sc))
    # the reference writer's order: larger alignment first, then by name
    align = {"F32": 4, "F8_E4M3": 1}
    entries.sort(key=lambda t: (-align[t[1]], t[0]))
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for n, d, shape, size in entries:
        header[n] = {"dtype": d, "shape": shape, "data_offsets": [off, off + size]}
        weight_map[n] = name
        off += size
    total += off
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    path = os.path.join(root, name)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        f.truncate(8 + len(h) + off)
index = {"metadata": {"total_size": total}, "weight_map": weight_map}
with open(os.path.join(root, "model.safetensors.index.json"), "w") as f:
    f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")
print(f"{shards} shards x {len(entries)} tensors, header {len(h)} bytes, data {off} bytes each", file=sys.stderr)
PY
  echo "hashing once for the JSON manifest (the full check's reference)" >&2
  "$pp" --no-catalog manifest "$root" --format json -o "$data/weights.json" -q
  touch "$stamp"
fi

best() {
  local n=$1 cmd=$2 best=
  for _ in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s.%N); bash -c "$cmd" > /dev/null 2>&1 || true; t1=$(date +%s.%N)
    best=$(python3 -c "t=$t1-$t0; b='$best'; print(t if not b or t<float(b) else b)")
  done
  printf '%.4f' "$best"
}
peak_rss_mib() {
  /usr/bin/time -f '%M' bash -c "$1 > /dev/null 2>&1" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'
}
ratio() { python3 -c "print(f'{$1/$2:.4g}')"; }

m=$data/weights.json
idx=$root/model.safetensors.index.json
# one unmeasured pass of each, so that the headers are in the page cache
"$pp" --no-catalog check "$root" --manifest "$m" --sizes-only -q > /dev/null
# the checks must pass: a failure would time the wrong thing
"$pp" --no-catalog shards check "$root" --index "$idx" > /dev/null 2> "$data/shards.txt"

c_stat="find $root -name '*.safetensors' -printf '%s %p\n'"
c_v1="$pp --no-catalog check $root --manifest $m --sizes-only --no-structure -q"
c_struct="$pp --no-catalog check $root --manifest $m --sizes-only -q"
c_shards="$pp --no-catalog shards check $root --index $idx -q"
c_full="$pp --no-catalog check $root --manifest $m -q"

t_stat=$(best "$reps" "$c_stat")
t_v1=$(best "$reps" "$c_v1")
t_struct=$(best "$reps" "$c_struct")
t_shards=$(best "$reps" "$c_shards")
t_full=$(best "$reps_full" "$c_full")
rss_struct=$(peak_rss_mib "$c_struct")
rss_shards=$(peak_rss_mib "$c_shards")

apparent=$(du -sb --apparent-size "$root" | cut -f1)
ondisk=$(du -s -B1 "$root" | cut -f1)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tools: $($pp --version), $(find --version | head -1)"
echo "checkpoint: $shards shards, $(tail -1 "$data/shards.txt")"
echo "data: $apparent bytes apparent, $ondisk bytes on disk (sparse); reps: best of $reps (full hash: $reps_full), warm cache"
printf '\n%-48s %10s %12s %s\n' step seconds ratio reference
printf '%-48s %10s %12s %s\n' "find -printf %s (stat alone)" "$t_stat" "1" "-"
printf '%-48s %10s %12s %s\n' "check --sizes-only --no-structure" "$t_v1" "$(ratio "$t_stat" "$t_v1")" "stat alone"
printf '%-48s %10s %12s %s\n' "check --sizes-only (structure + header digests)" "$t_struct" "$(ratio "$t_stat" "$t_struct")" "stat alone"
printf '%-48s %10s %12s %s\n' "shards check --index" "$t_shards" "$(ratio "$t_stat" "$t_shards")" "stat alone"
printf '%-48s %10s %12s %s\n' "check (full hash)" "$t_full" "1" "-"
printf '%-48s %10s %12s %s\n' "check --sizes-only (structure + header digests)" "$t_struct" "$(ratio "$t_full" "$t_struct")" "full hash"
printf '%-48s %10s %12s %s\n' "shards check --index" "$t_shards" "$(ratio "$t_full" "$t_shards")" "full hash"
echo
echo "structure cost over the v1 launch check: $(python3 -c "print(f'{$t_struct-$t_v1:.4f}')") s for $shards headers"
echo "peak RSS: check --sizes-only ${rss_struct} MiB, shards check --index ${rss_shards} MiB"
echo "ratio = reference time / proofpack time (>1: proofpack faster)"
