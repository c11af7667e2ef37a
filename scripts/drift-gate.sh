#!/usr/bin/env bash
# The project's own drift gate: testdata/ must match the pinned manifest in
# manifests/. After an intended change to testdata/, refresh the pin with
#   cargo run --release -- manifest testdata -o manifests/testdata.manifest
# and commit both together.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
# --no-catalog: CI leaves no state behind, and the gate hashes every file.
target/release/proofpack --no-catalog diff manifests/testdata.manifest testdata
