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
# Usage: scripts/bench-verify-hostile.sh [N]   (default 1000000 measured
#        requests in one point)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
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
  python3 - "$variant" "$code" $(tail -1 "$v.rss") "$declared" <<'PY'
import sys
variant, code, secs, rss, declared = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
over = max(0, rss * 1024 - 64 * 2**20) / declared
bound = (64 * 2**20 + 64 * declared) / 2**20
print(f"{variant:<15} {code:6d} {secs:9.2f} {rss/1024:9.1f} {over:12.1f} {bound:14.1f} {'yes' if rss * 1024 <= bound * 2**20 else 'no'}")
PY
  rm -rf "$v" "$v".tgz*
done
