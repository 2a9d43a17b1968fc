#!/usr/bin/env bash
# Creates (or refreshes) .venv from tools/requirements.txt with the python3
# first on PATH (a CPython with pip; Debian's /usr/bin/python3 has none).
# Tests that need it (NumPyro references) skip with a message when it is
# missing, so a machine without PyPI still builds and tests the rest.
# Usage: tools/setup_venv.sh [venv-dir]
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-$root/.venv}"
req="$root/tools/requirements.txt"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "setup_venv: $venv is up to date"
  exit 0
fi
py="$(command -v python3)"
echo "setup_venv: installing tools/requirements.txt into $venv with $py"
rm -rf "$venv"
if "$py" -m venv "$venv" &&
   "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"; then
  echo "$want" > "$stamp"
  echo "setup_venv: done"
else
  echo "setup_venv: WARNING: could not install the reference packages;" \
       "the NumPyro reference tests will skip" >&2
  rm -rf "$venv"
fi
exit 0
