#!/usr/bin/env bash
# Measures reading a write-up at the reading limits with
# `proofpack pins from-publication WRITEUP.md` (read, parse, check, classify
# every table, read every cell; best of 5 wall time, and peak RSS) against
# cmark-gfm's own render of the same file in the same run (Debian's
# cmark-gfm, `-e table -e strikethrough -e autolink`, to /dev/null; best of
# 5). Inputs, generated from the sample's write-up:
#   rows:   the sample with its measured-points table extended to the most
#           rows the node limit admits (about 19,000 rows, 2.9 MiB);
#   prose:  the sample followed by paragraphs of prose to 8 MiB;
#   dense:  8 MiB of one-character cells (refused at the node limit: the
#           time and memory of the refusal).
# Usage: [PP=BINARY] scripts/bench-publication.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cmark-gfm >/dev/null || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q cmark-gfm >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# PP=path/to/proofpack measures another build (e.g. the dev profile, whose
# dependencies, comrak among them, are built at opt-level 2).
if [[ -z "${PP:-}" ]]; then
  cargo build --release --quiet --bin proofpack
fi
pp=${PP:-target/release/proofpack}
python3 - "$work" testdata/sample/PUBLICATION.md <<'PY'
import sys
work, sample = sys.argv[1], open(sys.argv[2]).read()
head, tail = sample.split("| 1 request/s |")
row = "| {r} request/s | 0.836 request/s | 107.0 tokens/s | 5.698 / 7.145 / 7.762 s | 260.6 / 261.6 / 262.0 ms | 197/200 within limits, 2 failed, 1 timed out |\n"
rows = [row.format(r=f"{1 + i * 0.001:.3f}") for i in range(18500)]
open(f"{work}/rows.md", "w").write(head + "".join(rows) + "\n" + tail.split("\n\n", 1)[1])
para = ("The qualified fleet ran every point with a ready router and an idle drain; "
        "the client and the journal agree on every terminal request. ") * 4 + "\n\n"
text = sample + "\n"
text += para * ((8 * 1024 * 1024 - len(text.encode()) - 64) // len(para))
open(f"{work}/prose.md", "w").write(text)
hdr = "|" + "a|" * 60 + "\n|" + "-|" * 60 + "\n"
line = "|" + "1|" * 60 + "\n"
open(f"{work}/dense.md", "w").write(hdr + line * ((8 * 1024 * 1024 - len(hdr)) // len(line)))
PY
best() { # best wall time of 5 runs of "$@", in seconds (any exit status)
  python3 - "$@" <<'PY'
import subprocess, sys, time
ts = []
for _ in range(5):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append(time.perf_counter() - t)
print(f"{min(ts):.4f}")
PY
}
for f in rows prose dense; do
  in="$work/$f.md"
  size=$(python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1])/2**20:.2f} MiB')" "$in")
  set +e
  "$pp" -q --no-catalog pins from-publication "$in" -o /dev/null >/dev/null 2>"$work/err"
  code=$?
  set -e
  /usr/bin/time -f "%M" -o "$work/rss" "$pp" -q --no-catalog pins from-publication "$in" -o /dev/null >/dev/null 2>&1 || true
  rss=$(tail -1 "$work/rss")
  t=$(best "$pp" -q --no-catalog pins from-publication "$in" -o /dev/null)
  ref=$(best cmark-gfm -e table -e strikethrough -e autolink "$in")
  echo "bench-publication: $f ($size): exit $code, $t s (best of 5), peak RSS $((rss / 1024)) MiB; cmark-gfm render $ref s; ratio proofpack / cmark-gfm $(python3 -c "print(f'{$t/$ref:.2f}')")"
  [[ $code -eq 0 ]] || echo "bench-publication:   $f: $(head -c 200 "$work/err")"
done
