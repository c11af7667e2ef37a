#!/usr/bin/env bash
# Regression benchmark (issue 10: "no regression beyond noise"): builds an
# earlier revision (default ee848c69, the build behind the 2026-11-29
# figures in docs/performance.md) in a git worktree under target/, and times
# it against the current release build in the same run, on the data of
# scripts/bench-manifest.sh and scripts/bench-bundle.sh (run those first):
# manifest of sets (a), (b), (c); seal of run-full; verify --structure-only
# of one bundle. Best of REPS (default 3), warm cache, catalog off. Also
# checks that both seal byte-identical bundles (v1 output unchanged), or,
# across v1.1's block deflate, the same tar stream in other gzip bytes.
#
# Usage: scripts/bench-regression.sh [REV]
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-ee848c69}
reps=${REPS:-3}
[[ -d target/bench-manifest/c && -d target/bench-bundle/run-full ]] || {
  echo "bench-regression: run scripts/bench-manifest.sh and scripts/bench-bundle.sh first" >&2; exit 2; }
wt=target/bench-regression/$rev
if [[ ! -x $wt/target/release/proofpack ]]; then
  rm -rf "$wt"; git worktree prune
  git worktree add -f --detach "$wt" "$rev" >&2
  (cd "$wt" && CARGO_TARGET_DIR=$PWD/target cargo build --release --quiet)
fi
cargo build --release --quiet
O=$wt/target/release/proofpack
N=${CARGO_TARGET_DIR:-$PWD/target}/release/proofpack
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
best() {
  local b=
  for _ in $(seq "$reps"); do
    local t0 t1; t0=$(date +%s.%N); bash -c "$1" >/dev/null 2>&1; t1=$(date +%s.%N)
    b=$(python3 -c "t=$t1-$t0; b='$b'; print(t if not b or t<float(b) else b)")
  done
  printf '%.3f' "$b"
}
row() { printf '%-40s %8s %8s %8s\n' "$1" "$2" "$3" "$(python3 -c "print(f'{$2/$3:.3f}')")"; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $rev ($(git log -1 --format=%cd --date=short "$rev")), new: $(git rev-parse --short HEAD); best of $reps"
printf '%-40s %8s %8s %8s\n' step old new old/new
for set in a b c; do
  row "manifest ($set)" "$(best "$O --no-catalog manifest target/bench-manifest/$set")" "$(best "$N --no-catalog manifest target/bench-manifest/$set")"
done
row "seal (run-full)" "$(best "rm -f $tmp/o.tgz*; $O --no-catalog seal target/bench-bundle/run-full -o $tmp/o.tgz")" \
  "$(best "rm -f $tmp/n.tgz*; $N --no-catalog seal target/bench-bundle/run-full -o $tmp/n.tgz")"
if cmp -s "$tmp/o.tgz" "$tmp/n.tgz"; then
  echo "seal output: byte-identical (old and new)"
elif cmp -s <(gzip -dc "$tmp/o.tgz") <(gzip -dc "$tmp/n.tgz"); then
  # v1.1 deflates in 128 KiB blocks: other gzip bytes around the same tar.
  echo "seal output: the same tar stream, other gzip bytes (a build before or after v1.1's block deflate)"
else
  echo "seal output: DIFFERS (another tar stream)"
fi
row "verify --structure-only (one bundle)" "$(best "$O --no-catalog verify $tmp/n.tgz --structure-only")" "$(best "$N --no-catalog verify $tmp/n.tgz --structure-only")"
echo "old/new = old time / new time (above 1: the current build is faster)"
