#!/usr/bin/env bash
# Create .venv (if missing) and install the project with the extras given (default: dev).
# The install is editable, so code changes need no reinstall: pip runs again only when
# pyproject.toml or the extras change (a stamp in .venv records what was installed).
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-dev}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.agentmaker-setup"
want="$(cat pyproject.toml; echo "extras=${extras}"; .venv/bin/python -V)"
want="$(printf '%s' "$want" | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && grep -qx "$want" "$stamp" && .venv/bin/python -c "import agentmaker" 2>/dev/null; then
  exit 0
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[${extras}]"
# Several extras may be installed one after another (dev, then gui): remember each.
echo "$want" >> "$stamp"
