#!/usr/bin/env bash
# Measures `proofpack verify` on a generated qualification with N measured
# requests per point (default 100000, two points), sealed, pinned and trusted.
# Prints wall time and peak memory. Usage: scripts/bench-verify.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet --example make_sample --bin proofpack
target/release/examples/make_sample "$work" --requests "$n" --no-workload
bundle=$(ls "$work"/*.tgz)
echo "bench-verify: $n requests per point, bundle $(du -h "$bundle" | cut -f1), run $(du -sh "$work"/run | cut -f1)"
for i in 1 2 3; do
  /usr/bin/time -f "bench-verify: run $i: %e s wall, %M KiB max RSS" \
    target/release/proofpack -q --no-catalog verify "$bundle" --pins "$work/pins.json" --trust "$work/trust.json" --table none >/dev/null
done
/usr/bin/time -f "bench-verify: run directory: %e s wall, %M KiB max RSS" \
  target/release/proofpack -q --no-catalog verify "$work"/run/* --trust "$work/trust.json" --table none >/dev/null
