#!/usr/bin/env bash
# Set up and start agentmaker Desk. Without a display, run the engine's main job instead:
# index the bundled sample documents and answer a question with citations, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh gui
if [ "$(uname)" = "Linux" ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" != "offscreen" ]; then
  echo "No display found: running the engine's main job (agentmaker demo)." >&2
  exec .venv/bin/agentmaker demo "$@"
fi
if [ "$(uname)" = "Linux" ] && [ -n "${DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" != "offscreen" ]; then
  bash scripts/qt_xcb_deps.sh || exit 1
fi
exec .venv/bin/agentmaker-desk "$@"
