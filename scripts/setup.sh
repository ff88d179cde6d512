#!/usr/bin/env bash
# Set up a development environment from a fresh clone; safe to run again (it only does what is missing).
#   - Debian chromium for the browser tests (installed only when /usr/bin/chromium is missing and we are root)
#   - .venv (override with NOTEBOOK_CHAT_VENV) with `pip install -e ".[test]"` (JupyterLab, the test tools, and
#     build + twine for the packaging test); the hatch build hook
#     (hatch_build.py) builds the JS widget bundle and the JupyterLab extension with npm when they are stale.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${NOTEBOOK_CHAT_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

if [ ! -x /usr/bin/chromium ] && [ "${NOTEBOOK_CHAT_SKIP_CHROMIUM:-0}" != "1" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "[setup] installing Debian chromium (browser tests)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null  # a CJK font: the zh-CN screenshot
  else
    echo "[setup] WARNING: /usr/bin/chromium is missing; the browser tests need it (apt-get install chromium)" >&2
  fi
fi

if ! command -v npm >/dev/null; then
  echo "[setup] WARNING: node/npm not found; using the prebuilt front-end assets if they are present" >&2
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

# The install is current when nothing it depends on changed since the last one (Python edits need no reinstall:
# the install is editable; front-end sources, the build hook, the dependencies and the version do).
stamp_file="$VENV/.notebook_chat_setup"
stamp=$( (cat pyproject.toml hatch_build.py notebook_chat/_version.py; find js -path '*/node_modules' -prune -o -type f -print | LC_ALL=C sort \
  | xargs cat) | sha256sum | cut -d' ' -f1)
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] && "$VENV/bin/python" -c "import notebook_chat" 2>/dev/null; then
  echo "[setup] install is current"
else
  echo "[setup] pip install -e .[test] (builds the front end when needed)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[test]"
  echo "$stamp" > "$stamp_file"
fi

if ! "$VENV/bin/jupyter" labextension list 2>&1 | grep -q "notebook-chat.*enabled.*OK"; then
  echo "[setup] ERROR: the notebook-chat JupyterLab extension is not installed in $VENV" >&2
  "$VENV/bin/jupyter" labextension list >&2 || true
  exit 1
fi
echo "[setup] ready: $VENV"
