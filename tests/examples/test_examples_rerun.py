"""Restart Kernel → Run All gives the same transcript every time (issue 13 item 11): each example runs headless twice
against the same notebook metadata, which a stand-in for the browser's notebook bridge keeps in a file (the kernel's
`persist` writes applied as the browser applies them, what is stored handed to each chat as the browser's "ready"
does). Without `fresh=True` the second run would restore the first run's conversation and append to it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from .test_examples_run import client_for, examples_dir, read_notebook

__all__ = ["examples_dir"]  # the fixture, shared with test_examples_run

BRIDGE = '''
import asyncio as _asyncio, json as _json, pathlib as _pathlib
from notebook_chat.widget.chat import Chat as _Chat
from notebook_chat.widget.chat_widget import ChatWidget as _Widget
from notebook_chat.persistence.patches import apply_write as _apply_write

_METADATA = _pathlib.Path({path!r})
_STORED = _json.loads(_METADATA.read_text()) if _METADATA.exists() else {{}}
_SHOWN = []


def _persist(widget, write):
    entry = _apply_write(_STORED.get(write["key"]), write)
    if entry is None:
        _STORED.pop(write["key"], None)
    else:
        _STORED[write["key"]] = entry
    _METADATA.write_text(_json.dumps(_STORED))


def _shown(chat, _draw=_Chat._repr_mimebundle_, **kwargs):
    bundle = _draw(chat, **kwargs)
    _SHOWN.append(chat)
    record = _STORED.get(chat.key)
    handed = _json.loads(_json.dumps(record)) if record is not None else None
    _asyncio.ensure_future(chat.restore(handed, {{"notebook": True, "cell_id": chat.key}}))
    return bundle


_Widget.persist = _persist
_Chat._repr_mimebundle_ = _shown
'''

TRANSCRIPT = '''
def _message(message):
    calls = [[call["function"]["name"], call["function"]["arguments"]] for call in message.get("tool_calls") or []]
    stopped = (message.get("state") or {}).get("aborted") or (message.get("state") or {}).get("interrupted")
    return [message["role"], "(stopped)" if stopped else message.get("content"), calls]


for _chat in _SHOWN:
    await _chat._await_front_end()
print("TRANSCRIPTS", _json.dumps([[_chat.key, [_message(m) for m in _chat.messages],
                                   [c["title"] for c in _chat.conversations]] for _chat in _SHOWN]))
'''

RERUN = ["approvals.ipynb", "continue.ipynb", "quickstart.ipynb"]


def run_all(workdir: Path, name: str, metadata: Path) -> list[Any]:
    """One Run All in a new kernel (as after Restart Kernel); the transcripts of every chat shown."""
    notebook = read_notebook(workdir / name)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(BRIDGE.format(path=str(metadata))))  # type: ignore[no-untyped-call]
    notebook.cells.append(nbformat.v4.new_code_cell(TRANSCRIPT))  # type: ignore[no-untyped-call]
    client_for(notebook, workdir).execute()
    text = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    match = re.search(r"^TRANSCRIPTS (.*)$", text, re.MULTILINE)
    assert match, f"no transcript printed: {text!r}"
    return json.loads(match.group(1))  # type: ignore[no-any-return]


@pytest.fixture
def metadata(tmp_path: Path) -> Path:
    return tmp_path / "notebook_metadata.json"


@pytest.mark.parametrize("name", RERUN)
def test_running_an_example_again_after_a_restart_gives_the_same_transcript(
        examples_dir: Path, metadata: Path, name: str) -> None:
    first = run_all(examples_dir, name, metadata)
    assert metadata.exists(), "the first run wrote the chat to the notebook's metadata"
    second = run_all(examples_dir, name, metadata)
    assert first, "the example shows a chat"
    assert all(messages for _, messages, _ in first)
    assert second == first
