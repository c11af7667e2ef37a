#!/usr/bin/env bash
# Compares the JSON reports and HTML pages of two proofpack builds over the
# runs and bundles the test suite builds: the suite runs twice, once with
# each build standing in for the binary under test, and every `verify
# --json` answer and every `--html` page is recorded in order; then the
# two records are compared (ignoring `context.verified_at` and the v1.1
# per-check fields `area`, `reason` and `cause`, which a build before them
# does not write). Used to show that a refactoring changes no answer.
# An answer whose input files (every argument that names a file) differ in
# bytes between the two runs (a test that makes a tarball with the time in
# it) is counted apart as not compared.
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
n=$(flock "$SNAP/.lock" bash -c 'n=$(( $(cat "$1/.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$1/.n"; echo $n' _ "$SNAP")
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
  # The digests of the files it read: a test that makes its input afresh
  # (a tarball with the time in it) gives the two builds different inputs.
  for a in "$@"; do [[ -f $a ]] && sha256sum "$a" | cut -c1-64; done > "$SNAP/$id.inputs"
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
def index(side):
    # Answers keyed by their command line (temporary directories as /TMP)
    # and how many times that line came before: a test that stops early
    # against one build shifts no other test's answers.
    out, seen = {}, {}
    for n in sorted(os.listdir(side)):
        if not n.endswith(".args"):
            continue
        args = tmp.sub("/TMP", open(os.path.join(side, n)).read().strip())
        k = seen.get(args, 0)
        seen[args] = k + 1
        out[(args, k)] = n[:5]
    return out
io, inew = index(old), index(new)
compared = differ = other_input = only = 0
def inputs(side, i):
    p = os.path.join(side, i + ".inputs")
    return open(p).read() if os.path.exists(p) else None
for key in sorted(set(io) | set(inew)):
    if key not in io or key not in inew:
        only += 1
        print(f"recorded against one build only: {key[0]}")
        continue
    a, b = io[key], inew[key]
    if inputs(old, a) != inputs(new, b):
        other_input += 1
        continue
    for ext, norm in ((".json", norm_json), (".html", norm_html)):
        pa, pb = os.path.join(old, a + ext), os.path.join(new, b + ext)
        if not (os.path.exists(pa) or os.path.exists(pb)):
            continue
        if not (os.path.exists(pa) and os.path.exists(pb)):
            differ += 1
            print(f"{key[0]}: {ext} written by one build only")
            continue
        ta, tb = open(pa, errors="replace").read(), open(pb, errors="replace").read()
        compared += 1
        if norm(ta) != norm(tb):
            differ += 1
            print(f"{key[0]}: differs ({a}{ext} / {b}{ext})")
print(f"compare-reports: {compared} answers compared, {differ} differ; "
      f"{other_input} not compared (the test gave the two builds files of different bytes); "
      f"{only} recorded against one build only")
sys.exit(1 if differ else 0)
PY
