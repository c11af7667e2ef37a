#!/usr/bin/env bash
# The project's test command: installs what the tests need, then runs
# cargo test (extra arguments are passed to it):
# - Debian packages of the commands the tests run, with apt-get, when a
#   command is missing: chromium (the HTML report is checked in a real
#   browser), node and npm, man (man-db), script (util-linux), GNU tar,
#   openssl, /usr/bin/time, python3 with venv, bsdtar (libarchive-tools: a
#   third reader of every sealed bundle);
# - the pinned Python peers of the interop tests, in a virtualenv under
#   target/pyenv (once per requirements file);
# - the pinned playwright-core that drives chromium, with npm, under
#   target/js (no browser download: it uses Debian's chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
# command -> Debian package providing it
need=(chromium:chromium node:nodejs npm:npm man:man-db script:util-linux tar:tar
      openssl:openssl /usr/bin/time:time python3:python3 mkfifo:coreutils
      bsdtar:libarchive-tools)
missing=()
for pair in "${need[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
if ((${#missing[@]})); then
  echo "test.sh: installing ${missing[*]} (apt-get)" >&2
  if [[ $(id -u) -eq 0 ]]; then sudo=; else sudo=sudo; fi
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}" >/dev/null
fi
venv=target/pyenv
req=scripts/requirements-test.txt
stamp="$venv/.installed-$(sha256sum "$req" | cut -c1-16)"
if [[ ! -f "$stamp" ]]; then
  echo "test.sh: installing Python test peers into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  touch "$stamp"
fi
export PROOFPACK_TEST_PYTHON="$PWD/$venv/bin/python"
js=target/js
playwright=playwright-core@1.65.1
if [[ ! -f "$js/.installed-$playwright" ]]; then
  echo "test.sh: installing $playwright into $js (npm)" >&2
  mkdir -p "$js"
  (cd "$js" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent "$playwright" >/dev/null)
  touch "$js/.installed-$playwright"
fi
export PROOFPACK_TEST_NODE_MODULES="$PWD/$js/node_modules"
exec cargo test "$@"
