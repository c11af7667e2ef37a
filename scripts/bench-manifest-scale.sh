#!/usr/bin/env bash
# Rerunnable scaling benchmark for manifests (issue 23; results in
# docs/performance.md): `manifest`, `check` and `diff` at 1,000 / 100,000 /
# 1,000,000 entries (SCALE_N="1000 100000 1000000"), each beside a reference
# tool measured in the same run, with proofpack's peak RSS (GNU time %M):
#   manifest: proofpack manifest TREE
#             vs  find TREE -type f -print0 | xargs -0 -P2 -n 1000 sha256sum
#   check:    proofpack check TREE --manifest M (every file hashed)
#             vs  sha256sum -c --quiet of the same set (one process)
#   check of an empty directory against M (every entry missing: the case
#             that took 650 MiB for 1,000,000 entries before v1.1)
#   diff:     proofpack diff M M2 (M2: 1% changed, 0.1% removed, 0.1% added)
#             vs  LC_ALL=C comm -3 of the same lines (the same merge of two
#             sorted files; comm wants whole lines sorted, so its copies are
#             sorted that way beforehand, untimed)
#   diff --json of the same, and catalog import of M as a JSON record
#             (peak RSS, no reference).
# The tree holds N files of a few bytes in directories of 1,000, so the cost
# measured is per entry, not per byte. Best of REPS (default 3), warm page
# cache, catalog off except for the import. Generated data lives under
# DATA_DIR (default target/bench-manifest-scale) and is removed at the end
# (1,000,000 files take about 4 GiB of disk and a few minutes to create).
#
# Usage: scripts/bench-manifest-scale.sh [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-target/bench-manifest-scale}
reps=${REPS:-3}
cargo build --release --quiet
pp=$PWD/target/release/proofpack
mkdir -p "$data"
data=$(cd "$data" && pwd)
trap 'rm -rf "${data:?}"/n-*' EXIT

best() { # best CMD: best wall time of REPS runs
  local b=
  for _ in $(seq "$reps"); do
    local t0 t1
    t0=$(date +%s.%N)
    bash -c "$1" > /dev/null 2>&1 || { [[ ${2:-} == may-fail ]] || { echo "failed: $1" >&2; exit 1; }; }
    t1=$(date +%s.%N)
    b=$(python3 -c "t=$t1-$t0; b='$b'; print(t if not b or t<float(b) else b)")
  done
  printf '%.3f' "$b"
}
rss() { # peak RSS in MiB of CMD
  /usr/bin/time -f '%M' -o "$data/rss" bash -c "$1 > /dev/null 2>&1" || true
  awk '{printf "%.1f", $1/1024}' < <(tail -1 "$data/rss")
}
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
row() { printf '%-9s %-40s %9s %9s %7s %9s\n' "$@"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "tools: $($pp --version), $(sha256sum --version | head -1), $(comm --version | head -1)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the run"
echo "reps: best of $reps, warm cache; ratio = reference time / proofpack time (>1: proofpack faster)"
row entries step proofpack reference ratio "RSS MiB"
for n in ${SCALE_N:-1000 100000 1000000}; do
  dir=$data/n-$n
  rm -rf "$dir"; mkdir -p "$dir"
  python3 - "$dir/tree" "$n" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"d-{i // 1000:04d}")
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f-{i:07d}.json"), "w") as f:
        f.write(f'{{"i": {i}}}\n')
PY
  tree=$dir/tree
  "$pp" --no-catalog manifest -q "$tree" -o "$dir/m" 2> /dev/null
  "$pp" --no-catalog manifest -q --format json "$tree" -o "$dir/m.json" 2> /dev/null
  "$pp" --no-catalog manifest -q --format sha256sum "$tree" -o "$dir/sums" 2> /dev/null
  python3 - "$dir/m" "$dir/m2" <<'PY'
import hashlib, sys
src, dst = sys.argv[1], sys.argv[2]
out = []
for i, line in enumerate(open(src)):
    path, hexd = line.rstrip("\n").rsplit(":", 1)
    if i % 1000 == 7:
        continue
    if i % 100 == 3:
        hexd = hashlib.sha256(hexd.encode()).hexdigest()
    out.append(f"{path}:{hexd}\n")
    if i % 1000 == 0:
        out.append(f"{path}.added:{hexd}\n")
out.sort(key=lambda l: l.rsplit(":", 1)[0].encode())
open(dst, "w").write("".join(out))
PY
  LC_ALL=C sort "$dir/m" > "$dir/m.comm"; LC_ALL=C sort "$dir/m2" > "$dir/m2.comm"
  mkdir -p "$dir/empty"
  # warm the cache
  find "$tree" -type f -print0 | xargs -0 -n 1000 cat > /dev/null
  t=$(best "$pp --no-catalog manifest -q $tree")
  r=$(best "find $tree -type f -print0 | xargs -0 -P2 -n 1000 sha256sum")
  row "$n" "manifest" "$t" "$r" "$(ratio "$r" "$t")" "$(rss "$pp --no-catalog manifest -q $tree")"
  t=$(best "$pp --no-catalog check -q $tree --manifest $dir/m")
  r=$(best "cd $tree && sha256sum -c --quiet $dir/sums")
  row "$n" "check (every file hashed)" "$t" "$r" "$(ratio "$r" "$t")" "$(rss "$pp --no-catalog check -q $tree --manifest $dir/m")"
  t=$(best "$pp --no-catalog check -q $dir/empty --manifest $dir/m.json" may-fail)
  row "$n" "check of an empty directory" "$t" "-" "-" "$(rss "$pp --no-catalog check -q $dir/empty --manifest $dir/m.json")"
  t=$(best "$pp --no-catalog diff -q $dir/m $dir/m2" may-fail)
  r=$(best "LC_ALL=C comm -3 $dir/m.comm $dir/m2.comm")
  row "$n" "diff (1% changed)" "$t" "$r" "$(ratio "$r" "$t")" "$(rss "$pp --no-catalog diff -q $dir/m $dir/m2")"
  t=$(best "$pp --no-catalog diff -q --json $dir/m $dir/m2" may-fail)
  row "$n" "diff --json" "$t" "-" "-" "$(rss "$pp --no-catalog diff -q --json $dir/m $dir/m2")"
  t=$(best "rm -f $dir/cat.sqlite*; $pp --catalog $dir/cat.sqlite catalog import big $dir/m.json")
  row "$n" "catalog import (JSON record)" "$t" "-" "-" "$(rss "rm -f $dir/cat.sqlite*; $pp --catalog $dir/cat.sqlite catalog import big $dir/m.json")"
  rm -rf "$dir"
done
