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
target/release/examples/make_sample "$work" --requests "$n"
bundle=$(ls "$work"/*.tgz)
echo "bench-verify: $n requests per point, bundle $(du -h "$bundle" | cut -f1), run $(du -sh "$work"/run | cut -f1)"
for i in 1 2 3; do
  /usr/bin/time -f "bench-verify: run $i: %e s wall, %M KiB max RSS" \
    target/release/proofpack -q --no-catalog verify "$bundle" --pins "$work/pins.json" --trust "$work/trust.json" --table none >/dev/null
done
# Reference in the same run: one pass of decompressing and hashing the
# bundle with GNU tools (verify makes two such passes, plus JSON parsing,
# invariants and metrics), and Python parsing the client records.
t0=$(date +%s.%N); gzip -dc "$bundle" | sha256sum >/dev/null; t1=$(date +%s.%N)
echo "bench-verify: reference gzip -dc | sha256sum: $(python3 -c "print(f'{$t1-$t0:.2f}')") s wall"
t0=$(date +%s.%N)
python3 -c 'import json,sys
n=0
for f in sys.argv[1:]:
    for line in open(f):
        json.loads(line); n+=1
print(n, file=sys.stderr)' "$work"/run/*/benchmark/*/client.jsonl "$work"/run/*/router-journal.jsonl 2>/dev/null
t1=$(date +%s.%N)
echo "bench-verify: reference python3 json.loads of every record and journal line: $(python3 -c "print(f'{$t1-$t0:.2f}')") s wall"
/usr/bin/time -f "bench-verify: run directory: %e s wall, %M KiB max RSS" \
  target/release/proofpack -q --no-catalog verify "$work"/run/* --trust "$work/trust.json" --table none >/dev/null
