#!/usr/bin/env bash
# Measures rendering the HTML report of a run with N measured requests per
# point (default 100000, two points): the JSON report's size (it carries the
# downsampled plot data), the page's size, and the time of
# `proofpack report REPORT.json -o REPORT.html` (the render alone, best of
# 5), against a reference measured in the same run: Python's json.load +
# json.dump of the same report (reading and writing the same data, no
# drawing). Also the extra cost of --html on verify. Usage:
# scripts/bench-html.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet --example make_sample --bin proofpack
target/release/examples/make_sample "$work" --requests "$n"
bundle=$(ls "$work"/*.tgz)
pp=target/release/proofpack
args=(-q --no-catalog verify "$bundle" --pins "$work/pins.json" --trust "$work/trust.json" --table none)
/usr/bin/time -f "bench-html: verify --json: %e s wall, %M KiB max RSS" "$pp" "${args[@]}" --json >/dev/null
/usr/bin/time -f "bench-html: verify --json --html: %e s wall, %M KiB max RSS" "$pp" "${args[@]}" --json --html "$work/v.html" >"$work/report.json"
best() { # best wall time of 5 runs of "$@", in seconds
  python3 - "$@" <<'PY'
import subprocess, sys, time
ts = []
for _ in range(5):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append(time.perf_counter() - t)
print(f"{min(ts):.4f}")
PY
}
render=$(best "$pp" report "$work/report.json" -o "$work/report.html")
cmp "$work/report.html" "$work/v.html" || { echo "bench-html: report and verify --html differ" >&2; exit 1; }
ref=$(best python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' "$work/report.json" "$work/ref.json")
size() { python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1])/2**20:.2f} MiB')" "$1"; }
echo "bench-html: $n requests per point, 2 points; report.json $(size "$work/report.json"), report.html $(size "$work/report.html")"
echo "bench-html: report -o REPORT.html: $render s (best of 5)"
echo "bench-html: reference python3 json.load + json.dump of the report: $ref s (best of 5)"
python3 -c "print(f'bench-html: ratio reference / render: {$ref/$render:.2f} (above 1: proofpack faster)')"
/usr/bin/time -f "bench-html: report -o REPORT.html: %M KiB max RSS" "$pp" report "$work/report.json" -o "$work/report.html" 2>&1 | grep bench-html
