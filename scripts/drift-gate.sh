#!/usr/bin/env bash
# The project's own drift gate: testdata/ must match the pinned manifest in
# manifests/. After an intended change to testdata/, refresh the pin with
#   cargo run --release -- manifest testdata -o manifests/testdata.manifest
# and commit both together.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
target/release/proofpack diff manifests/testdata.manifest testdata
