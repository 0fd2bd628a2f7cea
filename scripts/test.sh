#!/usr/bin/env bash
# Set up and run every check: lint, format, types, tests (Qt offscreen).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
export QT_QPA_PLATFORM=offscreen QT_API=pyside6
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing loudly" >&2
  exit 1
fi
exit "$status"
