"""Importing notebook_chat and running the demo loads no library it does not use (issue 17: Restart Kernel + re-run).

The openai SDK alone took about half a second of the notebook's first cell; markdown-it (export), PyYAML (skills) and
docstring_parser (``@tool``) are imported when that feature is first used. The OpenAI providers keep their names in
``notebook_chat.providers`` and import the SDK when they are looked up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import notebook_chat.providers

DEMO_SESSION = """
import json, sys
from notebook_chat import Chat
from notebook_chat.providers import DemoModel

chat = Chat(DemoModel())
reply = chat.ask("hello")
print(json.dumps({"reply": reply, "modules": sorted(sys.modules)}))
"""
DEFERRED = ("openai", "markdown_it", "yaml", "docstring_parser")
"""Top-level packages the demo's first cell and turn never need."""


@pytest.fixture(scope="module")
def demo_session() -> dict[str, object]:
    """A fresh interpreter that imports notebook_chat, builds a Chat with the DemoModel and runs one turn."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "NOTEBOOK_CHAT_"))}
    done = subprocess.run([sys.executable, "-c", DEMO_SESSION], capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_demo_session_runs_a_turn(demo_session: dict[str, object]) -> None:
    assert "offline demo model" in str(demo_session["reply"])


@pytest.mark.parametrize("package", DEFERRED)
def test_importing_notebook_chat_and_a_demo_turn_never_import(demo_session: dict[str, object], package: str) -> None:
    modules = demo_session["modules"]
    assert isinstance(modules, list)
    assert [name for name in modules if name == package or name.startswith(package + ".")] == []


@pytest.mark.parametrize("name", ["OpenAIChat", "OpenAIResponses"])
def test_the_openai_providers_are_looked_up_by_name_from_providers(name: str) -> None:
    from notebook_chat.providers import openai_chat, openai_responses

    defined_in = {"OpenAIChat": openai_chat, "OpenAIResponses": openai_responses}[name]
    assert getattr(notebook_chat.providers, name) is getattr(defined_in, name)
    assert name in notebook_chat.providers.__all__
    assert name in dir(notebook_chat.providers)


def test_an_unknown_name_in_providers_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'AnthropicChat'"):
        notebook_chat.providers.AnthropicChat  # noqa: B018
