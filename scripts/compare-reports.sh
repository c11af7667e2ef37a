#!/usr/bin/env bash
# Compares the JSON reports and HTML pages of two proofpack builds over the
# runs and bundles the test suite builds: the suite runs twice, once with
# each build standing in for the binary under test, and every `verify
# --json` answer and every `--html` page is recorded in order; then the
# two records are compared (ignoring `context.verified_at` and the v1.1
# per-check fields `area`, `reason` and `cause`, which a build before them
# does not write). Used to show that a refactoring changes no answer.
#
#   scripts/compare-reports.sh OLD_BINARY NEW_BINARY [cargo test args...]
#
# The suite runs with one test thread so that the order of the recorded
# answers is the same in both runs. Tests that fail against the old build
# (because they test something it lacks) still record what it answered.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1"); new=$(realpath "$2"); shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-reports.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat > "$work/wrapper" <<'W'
#!/usr/bin/env bash
# Runs the build under test and records what verify answered.
set -u
SNAP=$PROOFPACK_TEST_SNAP
REAL=$(cat "$SNAP/.real")
case " $* " in *" verify "*) ;; *) exec "$REAL" "$@" ;; esac
n=$(flock "$SNAP/.lock" bash -c 'n=$(( $(cat "$SNAP/.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$SNAP/.n"; echo $n')
json=0; html=; prev=; verb=0
for a in "$@"; do
  [[ $a == verify ]] && verb=1
  [[ $a == --json ]] && json=1
  [[ $prev == --html ]] && html=$a
  prev=$a
done
id=$(printf %05d "$n")
"$REAL" "$@" > "$SNAP/$id.out"; code=$?
cat "$SNAP/$id.out"
if ((verb)); then
  printf '%s\n' "$*" > "$SNAP/$id.args"
  ((json)) && { echo "$code"; cat "$SNAP/$id.out"; } > "$SNAP/$id.json"
  [[ -n $html && -f $html ]] && cp "$html" "$SNAP/$id.html"
fi
rm -f "$SNAP/$id.out"
exit $code
W
chmod +x "$work/wrapper"
for side in old new; do
  mkdir -p "$work/$side"
  real=$old; [[ $side == new ]] && real=$new
  echo "compare-reports: running the suite against the $side build ($real)" >&2
  echo "$real" > "$work/$side/.real"
  PROOFPACK_TEST_SNAP=$work/$side PROOFPACK_TEST_BIN=$work/wrapper \
    scripts/test.sh --no-fail-fast "$@" -- --test-threads=1 > "$work/$side.log" 2>&1 || true
done
python3 - "$work/old" "$work/new" <<'PY'
import json, os, re, sys
old, new = sys.argv[1], sys.argv[2]
tmp = re.compile(r'/tmp/[^/"\s]*')
def norm_json(text):
    code, _, body = text.partition("\n")
    body = tmp.sub("/TMP", body)
    try:
        v = json.loads(body)
    except ValueError:
        return code, body
    def strip(x):
        if isinstance(x, dict):
            x.pop("verified_at", None)
            for k in ("area", "reason", "cause"):
                if "ok" in x and "id" in x:
                    x.pop(k, None)
            return {k: strip(v) for k, v in x.items()}
        if isinstance(x, list):
            return [strip(e) for e in x]
        return x
    return code, json.dumps(strip(v), sort_keys=True)
def norm_html(text):
    text = tmp.sub("/TMP", text)
    return re.sub(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ', 'TIME', text)
names = sorted(set(os.listdir(old)) | set(os.listdir(new)))
compared = differ = 0
for n in names:
    if n.startswith(".") or n.endswith(".args"):
        continue
    a, b = os.path.join(old, n), os.path.join(new, n)
    if not (os.path.exists(a) and os.path.exists(b)):
        print(f"{n}: recorded in one run only"); differ += 1; continue
    ta, tb = open(a, errors="replace").read(), open(b, errors="replace").read()
    if n.endswith(".json"):
        same = norm_json(ta) == norm_json(tb)
    else:
        same = norm_html(ta) == norm_html(tb)
    compared += 1
    if not same:
        differ += 1
        args = open(os.path.join(new, n[:5] + ".args")).read().strip()
        print(f"{n}: differs ({args})")
print(f"compare-reports: {compared} answers compared, {differ} differ")
sys.exit(1 if differ else 0)
PY
