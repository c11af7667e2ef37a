#!/usr/bin/env bash
# Measures reading a write-up at the reading limits with
# `proofpack pins from-publication WRITEUP.md` (read, parse, check, classify
# every table, read every cell; best of 5 wall time, and peak RSS) against
# cmark-gfm's own render of the same file in the same run (Debian's
# cmark-gfm, `-e table -e strikethrough -e autolink`, to /dev/null; best of
# 5). Inputs, generated from the sample's write-up:
#   rows:   the sample with its measured-points table extended to the most
#           rows the node limit admits (found by bisection with the binary
#           itself: about 7,600 rows under the 100,000-node limit, v1.1);
#   wide:   a measured-points table whose rows state every value a row can
#           (20 cells each: both rates, the throughputs fleet-wide, per GPU
#           and per engine, six TTFT and six TPOT percentiles, the result),
#           as many rows as the node limit admits: the most published
#           values a write-up can hold;
#   prose:  the sample followed by paragraphs of prose to 8 MiB: 4,800
#           short statements and long narrative sentences, under the
#           10,000-statement limit (every sentence is a statement);
#   lines:  8 MiB of one paragraph of lines of 60 short claims ("It 1."),
#           a statement every 6 bytes (refused at the statement limit,
#           v1.1: the time and memory of the refusal);
#   dense:  8 MiB of one-character cells (refused at the node limit: the
#           time and memory of the refusal);
#   bindings: the sample's run directory with 24,000 publisher bindings in
#           its qualification.json (three of each of 8,000 sentences: its
#           parts, or the whole sentence and two parts) and a write-up of
#           80,000 lines holding them: the whole verify, against
#           cmark-gfm's render of the write-up.
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
python3 - "$work" testdata/sample/PUBLICATION.md "$pp" <<'PY'
import subprocess, sys
work, sample, pp = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
head, tail = sample.split("| 1 request/s |")
tail = "\n" + tail.split("\n\n", 1)[1]
def reads(path):
    r = subprocess.run([pp, "-q", "--no-catalog", "pins", "from-publication", path, "-o", "/dev/null"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0
def most_rows(name, make):
    lo, hi = 1, 1
    while True:  # grow until refused, then bisect: the most rows that read
        open(f"{work}/{name}.md", "w").write(make(hi))
        if not reads(f"{work}/{name}.md"):
            break
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        open(f"{work}/{name}.md", "w").write(make(mid))
        lo, hi = (mid, hi) if reads(f"{work}/{name}.md") else (lo, mid)
    open(f"{work}/{name}.md", "w").write(make(lo))
    return lo
row = "| {r} request/s | 0.836 request/s | 107.0 tokens/s | 5.698 / 7.145 / 7.762 s | 260.6 / 261.6 / 262.0 ms | 197/200 within limits, 2 failed, 1 timed out |\n"
rows = lambda n: head + "".join(row.format(r=f"{1 + i * 0.001:.3f}") for i in range(n)) + tail
wide_head = ("| Offered rate | Sent rate | Completed rate including drain | Completed rate per GPU | Completed rate per engine"
             " | Output throughput including drain | Output throughput per GPU | Output throughput per engine"
             " | TTFT p50 / p90 / p95 / p99 / p99.9 / p99.99 | TPOT p50 / p90 / p95 / p99 / p99.9 / p99.99 | Result |\n"
             + "|---" * 11 + "|\n")
wide_row = ("| {r} request/s | 0.99 request/s | 0.836 request/s | 0.026 request/s | 0.209 request/s | 107.0 tokens/s"
            " | 3.34 tokens/s | 26.7 tokens/s | 5.1 / 5.6 / 7.1 / 7.7 / 7.8 / 7.9 s | 260 / 261 / 261 / 262 / 263 / 264 ms"
            " | 197/200 within limits, 2 failed, 1 timed out |\n")
pinned = sample.split("Measured points¶")[0]
wide = lambda n: pinned + "Measured points¶\n" + wide_head + "".join(wide_row.format(r=f"{1 + i * 0.001:.3f}") for i in range(n))
n_rows = most_rows("rows", rows)
n_wide = most_rows("wide", wide)
print(f"bench-publication: rows: {n_rows} rows; wide: {n_wide} rows of 20 values", file=sys.stderr)
claims = ("The qualified fleet ran every point with a ready router and an idle drain; "
          "the client and the journal agree on every terminal request. ") * 4 + "\n\n"
story = ("The qualified fleet ran with a ready router and an idle drain, "
         "and the client and the journal kept their records in order, ") * 14 + "to the end.\n\n"
text = sample + "\n" + claims * 600  # 4,800 statements
text += story * ((8 * 1024 * 1024 - len(text.encode()) - 64) // len(story))  # about 4,600 more
open(f"{work}/prose.md", "w").write(text)
text = sample + "\n"
line = "It 1. " * 60 + "\n"
text += line * ((8 * 1024 * 1024 - len(text.encode()) - 64) // len(line))
open(f"{work}/lines.md", "w").write(text)
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
sample_bundle=testdata/sample/kimi-k3-mi355x-20260923-sample.tgz
for f in rows wide prose lines dense; do
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
  if [[ $code -ne 0 ]]; then
    echo "bench-publication:   $f: $(head -c 200 "$work/err")"
    continue
  fi
  # The whole verification of the sample bundle against this write-up
  # (every cell and statement a check, the page data built): time and
  # memory of what an auditor runs.
  v=(verify "$sample_bundle" --publication "$in" --trust testdata/sample/trust.json)
  /usr/bin/time -f "%M" -o "$work/rss" "$pp" -q --no-catalog "${v[@]}" >/dev/null 2>&1 || true
  vt=$(best "$pp" -q --no-catalog "${v[@]}")
  echo "bench-publication:   $f: verify of the sample bundle against it: $vt s (best of 5), peak RSS $(($(tail -1 "$work/rss") / 1024)) MiB; ratio to cmark-gfm $(python3 -c "print(f'{$vt/$ref:.2f}')")"
done

# Publisher bindings at scale: one pass over the write-up for all of them.
# Two shapes: every sentence bound only in parts (three fragments: not
# checked, the bindings named), and every sentence bound whole (one binding
# of the whole sentence and two of its parts: checked, every binding's
# values in the report).
python3 - "$work" testdata/sample/PUBLICATION.md "$sample_bundle" <<'PY'
import json, os, sys, tarfile
work, sample, bundle = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
for shape in ("parts", "whole"):
    with tarfile.open(bundle) as t:
        t.extractall(f"{work}/bound-{shape}", filter="data")
    run = os.path.join(f"{work}/bound-{shape}", os.listdir(f"{work}/bound-{shape}")[0])
    q = json.load(open(f"{run}/qualification.json"))
    q["statements"] = []
    lines = []
    for n in range(8000):
        parts = [f"alpha {n}x", f"beta {n}y", f"gamma {n}z"]
        sentence = "Note: " + ", ".join(parts) + "."
        lines += [sentence, ""]
        texts = parts if shape == "parts" else [sentence] + parts[:2]
        q["statements"] += [{"text": p, "check": "present", "file": "post-load.json"} for p in texts]
    json.dump(q, open(f"{run}/qualification.json", "w"))
    code = ["```"] + ["plain words of a log"] * (80000 - len(lines) - 2) + ["```"]
    open(f"{work}/bound-{shape}.md", "w").write(sample + "\n" + "\n".join(lines + code) + "\n")
    open(f"{work}/bound-{shape}.run", "w").write(run)
PY
for shape in parts whole; do
  run=$(cat "$work/bound-$shape.run")
  in="$work/bound-$shape.md"
  v=(verify "$run" --publication "$in" --trust testdata/sample/trust.json)
  set +e
  "$pp" -q --no-catalog "${v[@]}" >/dev/null 2>"$work/err"
  code=$?
  set -e
  /usr/bin/time -f "%M" -o "$work/rss" "$pp" -q --no-catalog "${v[@]}" >/dev/null 2>&1 || true
  vt=$(best "$pp" -q --no-catalog "${v[@]}")
  ref=$(best cmark-gfm -e table -e strikethrough -e autolink "$in")
  echo "bench-publication: bindings, sentences bound in $shape ($(wc -l < "$in") lines, 24000 bindings): verify of the run directory: exit $code, $vt s (best of 5), peak RSS $(($(tail -1 "$work/rss") / 1024)) MiB; cmark-gfm render $ref s; ratio proofpack / cmark-gfm $(python3 -c "print(f'{$vt/$ref:.2f}')")"
  if [[ $code -gt 1 ]]; then echo "bench-publication:   bindings: $(head -c 300 "$work/err")"; fi
done
