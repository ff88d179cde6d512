#!/usr/bin/env bash
# Set up (scripts/setup.sh) and open examples/quickstart.ipynb in JupyterLab. Works offline: without
# OPENAI_API_KEY the examples use the built-in DemoModel.
#   scripts/demo.sh                  # opens a browser tab
#   scripts/demo.sh --no-browser     # print the URL instead (any other jupyter lab option passes through)
#   NOTEBOOK_CHAT_PORT=8899 NOTEBOOK_CHAT_IP=0.0.0.0 scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."

NOTEBOOK_CHAT_SKIP_CHROMIUM=1 bash scripts/setup.sh
BIN="${NOTEBOOK_CHAT_VENV:-.venv}/bin"

extra=()
if [ "$(id -u)" = "0" ]; then
  extra+=(--allow-root)
fi
exec "$BIN/jupyter" lab examples/quickstart.ipynb \
  --port="${NOTEBOOK_CHAT_PORT:-8888}" --ServerApp.ip="${NOTEBOOK_CHAT_IP:-127.0.0.1}" \
  "${extra[@]}" "$@"
