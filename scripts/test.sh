#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint, type-check and run every test, browser tests included.
# Extra arguments go to pytest (e.g. `scripts/test.sh -m "not browser"` or `scripts/test.sh tests/e2e -x`).
# Exits with pytest's status; "no tests collected" (5) counts as a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
BIN="${NOTEBOOK_CHAT_VENV:-.venv}/bin"

echo "[test] ruff"
"$BIN/ruff" check .
echo "[test] mypy"
"$BIN/mypy" notebook_chat hatch_build.py

if command -v npm >/dev/null; then
  echo "[test] front-end unit tests (node --test)"
  (cd js/widget && { [ -d node_modules ] || npm ci --no-audit --no-fund --silent; } && npm test --silent)
fi

echo "[test] pytest"
status=0
"$BIN/python" -m pytest "$@" || status=$?
if [ "$status" = "5" ]; then
  echo "[test] ERROR: pytest collected no tests" >&2
fi
exit "$status"
