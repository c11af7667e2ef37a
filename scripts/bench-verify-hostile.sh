#!/usr/bin/env bash
# Peak RSS of `proofpack verify` on runs a hostile publisher shapes to cost
# the verifier memory (issue 23: no input above 64 MiB plus 64 bytes per
# request it declares), beside the honest run they are made from. Each
# variant is the same generated run (make_sample), edited and sealed again:
#   honest         the run as generated
#   disagreeing    every request's first journal event an hour before the
#                  client says it was sent (each request's events disagree
#                  with its client record from the first)
#   journal-first  the journal renamed to sort before the client records in
#                  the bundle (a-journal.jsonl), so its events are read
#                  before the records they are judged against
#   both           the two together
# The honest run is the sealed, signed sample and passes (exit 0); the
# variants fail (their pins are the honest run's, their seal unsigned, their
# journal checks fail): what is measured is what reading them costs (peak
# RSS and the wall time of that one run).
#
# Then the derived-point shapes: a one-point run whose client records are
# derived from a vLLM `bench serve` result file (`run import`), with M
# requests of 8 output tokens each, and the shapes a publisher can give its
# kept result file or its source to cost the verifier memory (each sealed
# again, unsigned; all but the first fail, as they should):
#   derived-honest  the run as imported
#   derived-values  one request's itls 40,000,000 zeros (80 MB of values
#                   where the point declares M requests)
#   derived-more    the result file holding 10 x M requests
#   derived-prefix  source.request_id_prefix of 2 MiB (copied into every
#                   derived record if it were not bounded first)
#   derived-name    a point name of 2 MiB
# The bound is the same: 64 MiB plus 64 bytes per declared request.
#
# Usage: scripts/bench-verify-hostile.sh [N [M]]   (default 1000000 measured
#        requests in one point; M default 200000 derived requests)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
m=${2:-200000}
# report VARIANT WIDTH EXIT RSSFILE DECLARED: one row of a table.
report() {
  python3 - "$1" "$2" "$3" $(tail -1 "$4") "$5" <<'PY'
import sys
variant, width, code = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
secs, rss, declared = float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
over = max(0, rss * 1024 - 64 * 2**20) / declared
bound = (64 * 2**20 + 64 * declared) / 2**20
within = 'yes' if rss * 1024 <= bound * 2**20 else 'no'
print(f"{variant:<{width}} {code:6d} {secs:9.2f} {rss/1024:9.1f} {over:12.1f} {bound:14.1f} {within}")
PY
}
cargo build --release --quiet --example make_sample --bin proofpack
pp=$PWD/target/release/proofpack
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/make_sample "$work" --requests "$n" --one-point >/dev/null
run=$(ls -d "$work"/run/*)
declared=$(python3 -c "
import json, sys
q = json.load(open(sys.argv[1] + '/qualification.json'))
print(sum(p['requests'] + p.get('warmup', 0) for p in q['points']))" "$run")
echo "bench-verify-hostile: $(nproc) cores; $n measured requests in one point, $declared declared with warmups"
printf '%-15s %6s %9s %9s %12s %14s %s\n' variant "exit" "verify s" "RSS MiB" "B/request" "bound MiB" "within"
for variant in honest disagreeing journal-first both; do
  v="$work/v-$variant"
  cp -r "$run" "$v"
  python3 - "$v" "$variant" <<'PY'
import json, os, sys
root, variant = sys.argv[1], sys.argv[2]
journal = "router-journal.jsonl"
if variant in ("disagreeing", "both"):
    src, dst = os.path.join(root, journal), os.path.join(root, journal + ".new")
    seen = set()
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            ev = json.loads(line)
            if ev["request_id"] not in seen:
                seen.add(ev["request_id"])
                ev["at"] = round(ev["at"] - 3600.0, 6)
                line = json.dumps(ev, separators=(",", ":")) + "\n"
            g.write(line)
    os.replace(dst, src)
if variant in ("journal-first", "both"):
    q = json.load(open(os.path.join(root, "qualification.json")))
    for p in q["points"]:
        p["journal"] = "a-journal.jsonl"
    json.dump(q, open(os.path.join(root, "qualification.json"), "w"), indent=1)
    os.rename(os.path.join(root, journal), os.path.join(root, "a-journal.jsonl"))
PY
  if [[ $variant == honest ]]; then
    # The sealed, signed sample: it passes.
    b=$(ls "$work"/*.tgz)
    cp "$b" "$v.tgz"
    cp "$b.seal.dsse.json" "$v.tgz.seal.dsse.json"
  else
    "$pp" -q --no-catalog seal "$v" -o "$v.tgz" >/dev/null 2>&1
  fi
  set +e
  /usr/bin/time -f "%e %M" -o "$v.rss" "$pp" -q --no-catalog verify "$v.tgz" --pins "$work/pins.json" \
    --trust "$work/trust.json" --table none >/dev/null 2>&1
  code=$?
  set -e
  report "$variant" 15 "$code" "$v.rss" "$declared"
  rm -rf "$v" "$v".tgz*
done

# ---------------------------------------------------------- derived points
python3 - "$work/derived.vllm.json" "$m" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
rate, t0 = 100.0, 4200000.0
starts = [round(t0 + i / rate, 6) for i in range(n)]
ttfts = [0.05 + (i % 100) * 1e-4 for i in range(n)]
itls = [[0.012] * 7 for _ in range(n)]
lat = [t + 0.084 + 1e-5 for t in ttfts]
doc = {"date": "20260625-150000",
       "duration": max(s + l for s, l in zip(starts, lat)) - starts[0],
       "input_lens": [100] * n, "output_lens": [8] * n, "ttfts": ttfts,
       "itls": itls, "latencies": lat, "start_times": starts,
       "errors": [""] * n, "generated_texts": ["t"] * n}
json.dump(doc, open(out, "w"), separators=(",", ":"))
PY
d="$work/derived"
"$pp" -q --no-catalog run new "$d" --model m/M --slo ttft=10,tpot=0.3,attainment=0.95 \
  --point p:rate=100,requests="$m" --max-input-tokens 256 --max-output-tokens 128 >/dev/null 2>&1
"$pp" -q --no-catalog run import "$d" --point p "$work/derived.vllm.json" >/dev/null 2>&1
echo
echo "bench-verify-hostile: derived points; $m requests derived from a vLLM result file in one point"
printf '%-26s %6s %9s %9s %12s %14s %s\n' variant "exit" "verify s" "RSS MiB" "B/request" "bound MiB" "within"
for variant in derived-honest derived-values derived-more derived-prefix derived-name; do
  v="$work/v-$variant"
  cp -r "$d" "$v"
  python3 - "$v" "$variant" <<'PY'
import json, os, sys
root, variant = sys.argv[1], sys.argv[2]
src = os.path.join(root, "inputs/p.vllm.json")
qpath = os.path.join(root, "qualification.json")
if variant in ("derived-values", "derived-more"):
    v = json.load(open(src))
    if variant == "derived-values":
        v["itls"][0] = "HOSTILE"
        text = json.dumps(v, separators=(",", ":"))
        text = text.replace('"HOSTILE"', "[" + "0," * 39999999 + "0]", 1)
    else:
        for k, a in list(v.items()):
            if isinstance(a, list):
                v[k] = a * 10
        text = json.dumps(v, separators=(",", ":"))
    open(src, "w").write(text)
if variant in ("derived-prefix", "derived-name"):
    q = json.load(open(qpath))
    if variant == "derived-prefix":
        q["points"][0]["source"]["request_id_prefix"] = "x" * (2 << 20)
    else:
        q["points"][0]["name"] = "x" * (2 << 20)
    json.dump(q, open(qpath, "w"), indent=1)
PY
  # Sealed where seal takes it; a qualification.json that seal refuses is
  # verified as the run directory.
  target="$v.tgz" kind=bundle
  if ! "$pp" -q --no-catalog seal "$v" -o "$v.tgz" >/dev/null 2>&1; then
    target="$v" kind=directory
  fi
  set +e
  /usr/bin/time -f "%e %M" -o "$v.rss" "$pp" -q --no-catalog verify "$target" \
    --trust testdata/sample/trust.json --table none >/dev/null 2>&1
  code=$?
  set -e
  report "$variant ($kind)" 26 "$code" "$v.rss" "$m"
  rm -rf "$v" "$v".tgz*
done
