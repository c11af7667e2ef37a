#!/usr/bin/env bash
# Measures `proofpack verify` of a generated, sealed, pinned and trusted
# qualification against the floor of reading its bundle once (`gzip -dc
# BUNDLE | sha256sum`), measured in the same run, best of 3 each; prints
# the ratio (proofpack / reference: 1.3 or less is the memory-and-speed
# issue's target) and proofpack's peak RSS with its bytes per measured
# request above a fixed 64 MiB.
#
# Usage: scripts/bench-verify.sh [N ...]   (default 100000; each N is the
#        measured requests per point of a two-point run; prefix N with 1x
#        for a one-point run, e.g. 1x1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
((${#sizes[@]})) || sizes=(100000)
cargo build --release --quiet --example make_sample --bin proofpack
pp=target/release/proofpack
best() { # best wall time of 3 runs of "$@", seconds
  python3 - "$@" <<'PY'
import subprocess, sys, time
ts = []
for _ in range(3):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append(time.perf_counter() - t)
print(f"{min(ts):.3f}")
PY
}
echo "bench-verify: $(nproc) cores, $(uname -m); best of 3, warm cache"
printf '%-22s %8s %10s %12s %10s %8s %10s %12s\n' size bundle "verify s" "gzip|sha s" ratio "RSS MiB" requests "B/request"
for size in "${sizes[@]}"; do
  work=$(mktemp -d)
  n=${size#1x}
  one=()
  points=2
  if [[ $size == 1x* ]]; then one=(--one-point); points=1; fi
  target/release/examples/make_sample "$work" --requests "$n" "${one[@]}" >/dev/null
  bundle=$(ls "$work"/*.tgz)
  args=(-q --no-catalog verify "$bundle" --pins "$work/pins.json" --trust "$work/trust.json" --table none)
  "$pp" "${args[@]}" >/dev/null 2>&1 || { echo "bench-verify: $size: verify did not pass" >&2; exit 1; }
  /usr/bin/time -f "%M" -o "$work/rss" "$pp" "${args[@]}" >/dev/null 2>&1
  rss=$(tail -1 "$work/rss")
  t=$(best "$pp" "${args[@]}")
  ref=$(best sh -c "gzip -dc '$bundle' | sha256sum")
  requests=$((n * points))
  python3 - "$size" "$(stat -c %s "$bundle")" "$t" "$ref" "$rss" "$requests" <<'PY'
import sys
size, b, t, ref, rss, req = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
over = max(0, rss * 1024 - 64 * 2**20) / req
print(f"{size:<22} {b/2**20:7.1f}M {t:10.3f} {ref:12.3f} {t/ref:10.2f} {rss/1024:8.1f} {req:10d} {over:12.1f}")
PY
  rm -rf "$work"
done
