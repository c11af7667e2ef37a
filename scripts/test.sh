#!/usr/bin/env bash
# The project's test command: installs what the tests need, then runs
# cargo test (extra arguments are passed to it):
# - the pinned Python peers of the interop tests, in a virtualenv under
#   target/pyenv (once per requirements file);
# - Debian's chromium, with apt-get, when it is missing (the HTML report is
#   checked in a real browser), and the pinned playwright-core that drives
#   it, with npm, under target/js (no browser download: it uses Debian's).
set -euo pipefail
cd "$(dirname "$0")/.."
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
if ! command -v chromium >/dev/null 2>&1; then
  echo "test.sh: installing chromium (apt-get)" >&2
  if [[ $(id -u) -eq 0 ]]; then sudo=; else sudo=sudo; fi
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium >/dev/null
fi
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
