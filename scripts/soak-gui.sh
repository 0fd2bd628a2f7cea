#!/usr/bin/env bash
# Run the GUI test suite N times in a row under load (two CPU burners beside it) and
# count the runs that crashed (a signal such as SIGSEGV/SIGABRT, or a hang), failed, or
# passed. Issue 21: the suite once segfaulted in 4 of 29 runs under load.
#
#   scripts/soak-gui.sh [N] [pytest args...]     (default N=20, tests/gui)
#
# In a git worktree, point AGENTMAKER_SHARED at the shared corpus (tests/paths.py).
#
# PYTHON (default .venv/bin/python) and TIMEOUT (seconds per run, default 900) can be
# set in the environment; the log of each bad run is kept under $SOAK_DIR (a temp dir).
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(tests/gui)
python="${PYTHON:-.venv/bin/python}"
limit="${TIMEOUT:-900}"
dir="${SOAK_DIR:-$(mktemp -d -t soak-gui.XXXXXX)}"
mkdir -p "$dir"
export QT_QPA_PLATFORM=offscreen QT_API=pyside6 PYTHONFAULTHANDLER=1
# This checkout's code, also when the venv has another checkout installed editable.
export PYTHONPATH="engine:gui${PYTHONPATH:+:$PYTHONPATH}"

burners=()
for _ in 1 2; do
  ( while :; do :; done ) &
  burners+=("$!")
done
trap 'kill "${burners[@]}" 2>/dev/null' EXIT

passed=0 failed=0 crashed=0
for i in $(seq 1 "$runs"); do
  log="$dir/run-$i.log"
  timeout --signal=ABRT "$limit" "$python" -m pytest -q -p no:cacheprovider "${targets[@]}" >"$log" 2>&1
  rc=$?
  summary="$(tail -n 1 "$log" 2>/dev/null || true)"
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)); verdict=passed; rm -f "$log"
  elif [ "$rc" -eq 1 ]; then
    failed=$((failed + 1)); verdict="failed (log: $log)"
  else
    crashed=$((crashed + 1)); verdict="CRASHED rc=$rc (log: $log)"
  fi
  echo "run $i/$runs: $verdict; $summary; load: $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "soak: $runs runs, $passed passed, $failed failed, $crashed crashed"
[ "$failed" -eq 0 ] && [ "$crashed" -eq 0 ]
