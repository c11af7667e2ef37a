#!/usr/bin/env bash
# Rerunnable benchmark for the fleet launch check (issue 12; results in
# docs/performance.md). In one run, on warm page cache, over the same 96
# files (96 safetensors shards x 64 MiB = 6 GiB of random tensor data, 256
# tensors each):
#   (a) `host check --sizes-only` (sizes, and every shard's header read and
#       checked) against `stat` of the same 96 files
#   (b) `host check --full` against `openssl dgst -sha256` as nproc parallel jobs
#   (c) `manifest --partition K/N` with N = 1 and N = 2 processes (run
#       concurrently), against a single `manifest` run; the merged digest is
#       checked against the single-run digest.
# Each command runs REPS times (default 3); the best wall time is reported;
# ratio = reference time / proofpack time (above 1: proofpack faster). Both
# host checks must pass on the generated shards before anything is timed.
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
if [[ ! -f "$data/.ready-st-$mib" ]]; then
  echo "generating 96 shards of $mib MiB in $data/w" >&2
  rm -rf "$data/w"; mkdir -p "$data/w"
  # Valid safetensors shards (the v1.1 sizes-only launch check reads every
  # shard's header): 256 U8 tensors each, random data.
  python3 - "$data/w" "$mib" <<'PY'
import json, os, struct, sys
root, mib = sys.argv[1], int(sys.argv[2])
n = 256
size = (mib << 20) // n
for s in range(96):
    header = {"__metadata__": {"format": "pt"}}
    for t in range(n):
        header[f"model.layers.{s}.block.{t:03d}.weight"] = {
            "dtype": "U8", "shape": [size], "data_offsets": [t * size, (t + 1) * size]}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(root, f"model-{s + 1:05d}-of-00096.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for _ in range(n):
            f.write(os.urandom(size))
PY
  touch "$data/.ready-st-$mib"
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
# ratio = reference time / proofpack time (above 1: proofpack faster)
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "tools: $($pp --version), $(openssl version | cut -d' ' -f1-2), $(stat --version | head -1)"
echo "data: 96 files x $mib MiB; best of $reps, warm cache"
echo '{"hosts": [{"name": "bench"}]}' > "$data/fleet.json"
hc="$pp host check $data/w --weights-manifest $data/w.json --host bench --run bench --fleet $data/fleet.json --key $data/host.key -o $data/report.dsse.json"
# the checks must pass: a failing check would time the wrong thing
for mode in --sizes-only --full; do
  $hc $mode > /dev/null 2>&1 || { echo "bench-fleet: host check $mode failed on the generated shards" >&2; exit 1; }
done
t_stat=$(best "stat $data/w/* > /dev/null")
t_sizes=$(best "$hc --sizes-only")
echo "(a) stat of 96 files:                 $t_stat s"
echo "    host check --sizes-only:          $t_sizes s   ratio $(ratio "$t_stat" "$t_sizes") (stat / proofpack)"
t_ossl=$(best "ls $data/w/* | xargs -P$(nproc) -n1 openssl dgst -sha256")
t_full=$(best "$hc --full")
echo "(b) openssl dgst, $(nproc) parallel jobs:  $t_ossl s"
echo "    host check --full:                $t_full s   ratio $(ratio "$t_ossl" "$t_full") (openssl / proofpack)"
t_one=$(best "$pp manifest $data/w")
t_p1=$(best "$pp manifest $data/w --partition 1/1 -o $data/p1.json")
t_p2=$(best "$pp manifest $data/w --partition 1/2 --threads 1 -o $data/p2a.json & $pp manifest $data/w --partition 2/2 --threads 1 -o $data/p2b.json & wait")
one=$($pp manifest "$data/w" 2>/dev/null | sha256sum | cut -c1-64)
merged=$($pp manifest merge "$data/p2a.json" "$data/p2b.json" 2>/dev/null | sha256sum | cut -c1-64)
echo "(c) manifest (one process):           $t_one s"
echo "    --partition 1/1:                  $t_p1 s   ratio $(ratio "$t_one" "$t_p1") (one run / partitioned)"
echo "    --partition K/2, 2 processes:     $t_p2 s   ratio $(ratio "$t_one" "$t_p2") (one run / partitioned)"
echo "    merged digest equals the single-run digest: $([[ $one == "$merged" ]] && echo yes || echo NO)"
