#!/usr/bin/env bash
# Reproduce the mybinder.org build of binder/ locally, then open examples/quickstart.ipynb in JupyterLab + Chromium
# and use it (tests/examples/test_binder_build.py: widget drawn with the DemoModel header, Approve clicked, the
# conversation saved into the notebook's metadata by the notebook-chat extension).
#
#   scripts/binder_check.sh              build in a temp dir, run the browser check, remove the temp dir
#   scripts/binder_check.sh build DIR    only build: DIR/repo (a clean copy of the checkout) and DIR/venv
#
# The build does what repo2docker does with binder/: a fresh Python environment holding JupyterLab (repo2docker's
# base image has it), `pip install -r binder/requirements.txt`, then `binder/postBuild` run from the repository root.
# Needs PyPI. The browser check runs with the test environment's Python (NOTEBOOK_CHAT_VENV, default .venv;
# set PYTHON_FOR_TESTS to override).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

step() { echo "[binder] $(( SECONDS - began )) s: $*"; }

build() {
  local dir="$1"
  began=$SECONDS
  mkdir -p "$dir/repo"
  dir="$(cd "$dir" && pwd)"
  step "copying the checkout (tracked and new files, .gitignore respected) to $dir/repo"
  git -C "$ROOT" ls-files -z --cached --others --exclude-standard \
    | (cd "$ROOT" && tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null) \
    | tar -xf - -C "$dir/repo"
  step "fresh virtual environment: JupyterLab (in repo2docker's base image) + pip install -r binder/requirements.txt"
  "${PYTHON:-python3}" -m venv "$dir/venv"
  (cd "$dir/repo" && "$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile \
    jupyterlab -r binder/requirements.txt)
  step "binder/postBuild"
  (cd "$dir/repo" && PATH="$dir/venv/bin:$PATH" ./binder/postBuild)
  step "built: $dir/venv"
}

if [ "${1:-}" = "build" ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 build DIR" >&2; exit 2; }
  build "$2"
  exit 0
fi

PYTHON_FOR_TESTS="${PYTHON_FOR_TESTS:-${NOTEBOOK_CHAT_VENV:-$ROOT/.venv}/bin/python}"
cd "$ROOT"
exec "$PYTHON_FOR_TESTS" -m pytest tests/examples/test_binder_build.py -p no:cacheprovider -s "$@"
