#!/usr/bin/env bash
# The project's test command: installs the pinned Python peers used by the
# interop tests into a virtualenv under target/ (once), then runs cargo test.
# Extra arguments are passed to cargo test.
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
exec cargo test "$@"
