#!/usr/bin/env bash
# Regenerates the screenshots of the sample's HTML report shown in
# docs/auditor-guide.md (docs/img/sample-report-*.png): verifies the sample
# with --html and photographs the page in headless chromium.
# Needs what scripts/test.sh installs (chromium, playwright-core in target/js).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
out=target/report-screenshots
mkdir -p "$out" docs/img
./target/release/proofpack --no-catalog verify testdata/sample/kimi-k3-mi355x-20260923-sample.tgz \
  --publication testdata/sample/PUBLICATION.md --trust testdata/sample/trust.json \
  --html "$out/report.html" >/dev/null
NODE_PATH=target/js/node_modules node scripts/report-screenshots.js "$out/report.html" \
  docs/img/sample-report-top.png docs/img/sample-report-plots.png
echo "wrote docs/img/sample-report-top.png docs/img/sample-report-plots.png" >&2
