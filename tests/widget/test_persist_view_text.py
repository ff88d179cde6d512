"""A streamed reply crosses the comm once: its deltas draw it, and the `persist` writes that store it name the text the
browser's view already holds (``append_view`` / ``set_view``) instead of carrying it again; the browser resolves them
from its view copy (``js/widget/src/persist_text.js``, run in node, against the reference ``resolve_view_text``) and
refuses text it does not hold exactly, which brings the whole record. The transcript goes with a turn's end."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.persistence.patches import PatchError, utf16_length
from notebook_chat.testing import ScriptedProvider
from notebook_chat.widget.persist_text import MIN_VIEW_TEXT, refer_to_view, resolve_view_text
from notebook_chat.widget.transcript import transcript_bundle
from notebook_chat.widget.view_copy import BrowserViewCopy

from .test_incremental_persist import browser_sends, persists, sent
from .widget_doubles import RecordingComm, active_conversation, drawn, notebook_entry

PERSIST_TEXT_JS = Path(__file__).resolve().parents[2] / "js" / "widget" / "src" / "persist_text.js"
NODE = shutil.which("node")
PIECES = ["word ", "é", "😀", "中文", "\n\n", "`code` ", "- item\n"]


def reply_text(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        parts.append(rng.choice(PIECES))
    return "".join(parts)


def text_ops(writes: list[dict[str, Any]]) -> int:
    """Characters of message text the writes carry themselves (appended, set, or inside inserted messages)."""
    total = 0
    for write in writes:
        for op in write["ops"]:
            if op["op"] == "append":
                total += len(op["text"])
            elif op["op"] == "set" and isinstance(op.get("value"), str):
                total += len(op["value"])
            elif op["op"] == "splice":
                total += sum(len(m.get("content") or "") for m in op["insert"])
    return total


async def streamed_chat(reply: str, *, chunks: int, delay: float, history: int = 0) -> Chat:
    provider = ScriptedProvider()
    for number in range(history):
        provider.text(f"old reply {number}")
    provider.text(reply, chunks=chunks, delay=delay)
    chat = Chat(provider, key="k")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "k", "record": None})
    for number in range(history):
        await chat.send(f"old question {number}")
    assert chat._autosave is not None
    chat._autosave.min_interval = 0.02
    return chat


async def test_a_reply_streamed_as_fast_as_possible_is_stored_by_naming_the_text_its_deltas_brought(
        recording_comms: list[RecordingComm]) -> None:
    reply = reply_text(6_000)
    chat = await streamed_chat(reply, chunks=600, delay=0.0)
    await chat.send("write")
    chat.widget.flush()
    writes = persists(chat)[1:]  # after the first whole record
    assert drawn(sent(chat))["messages"][-1]["content"] == reply
    assert text_ops(writes) < MIN_VIEW_TEXT
    assert any(op["op"] == "append_view" for write in writes for op in write["ops"])
    assert active_conversation(notebook_entry(sent(chat)))["messages"][-1]["content"] == reply


async def test_a_paced_replys_streaming_saves_name_the_streamed_text_too(
        recording_comms: list[RecordingComm]) -> None:
    reply = reply_text(6_000, seed=3)
    chat = await streamed_chat(reply, chunks=30, delay=0.01)
    await chat.send("write")
    chat.widget.flush()
    writes = persists(chat)[1:]
    views = [op for write in writes for op in write["ops"] if op["op"] in ("append_view", "set_view")]
    assert len(views) >= 3, "the streaming saves did not name the view's text"
    assert text_ops(writes) < MIN_VIEW_TEXT * len(writes)
    assert active_conversation(notebook_entry(sent(chat)))["messages"][-1]["content"] == reply


async def test_the_transcript_goes_with_the_turns_end_not_with_its_start_or_its_streaming_saves(
        recording_comms: list[RecordingComm]) -> None:
    chat = await streamed_chat(reply_text(3_000), chunks=60, delay=0.01)
    before = len(persists(chat))
    await chat.send("write")
    writes = persists(chat)[before:]
    assert len(writes) >= 3
    assert ["fallback" in write for write in writes] == [False] * (len(writes) - 1) + [True]
    assert writes[-1]["fallback"] == transcript_bundle(chat.messages, title=chat.widget.header)


# ---------------------------------------------------------------------------------------------- the browser's side

def view_holding(texts: dict[str, str]) -> BrowserViewCopy:
    copy = BrowserViewCopy()
    copy.take({"kind": "snapshot", "revision": 1, "view": {"messages": [
        {"id": message_id, "role": "assistant", "content": text, "reasoning_content": text[::-1]}
        for message_id, text in texts.items()]}})
    return copy


def reference(**changes: Any) -> dict[str, Any]:
    op = {"op": "append_view", "path": ["items", "main", "messages", 0, "content"], "at": 10, "id": "m1",
          "field": "content", "end": utf16_length(HELD)}
    op.update(changes)
    return {k: v for k, v in op.items() if v is not None}


HELD = reply_text(400, seed=11)
REFUSED = {
    "an unknown message": reference(id="m9"),
    "a message id that is not a string": reference(id=5),
    "a field that is not streamed text": reference(field="role"),
    "a field the message lacks": reference(field="arguments"),
    "an end one short": reference(end=utf16_length(HELD) - 1),
    "an end one long": reference(end=utf16_length(HELD) + 1),
    "an end that is not a number": reference(end="400"),
    "no end": {k: v for k, v in reference().items() if k != "end"},
    "an offset past the end": reference(at=utf16_length(HELD) + 1),
    "a negative offset": reference(at=-1),
    "an offset that is not a number": reference(at=1.5),
    "a set of an unknown message": reference(op="set_view", id="m9"),
    "a set of a shorter text": reference(op="set_view", end=3),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_write_naming_text_the_view_does_not_hold_exactly_is_refused(case: str) -> None:
    with pytest.raises(PatchError):
        resolve_view_text({"kind": "persist", "ops": [REFUSED[case]]}, view_holding({"m1": HELD}).text)


def test_a_view_without_a_copy_refuses_every_reference() -> None:
    with pytest.raises(PatchError):
        resolve_view_text({"kind": "persist", "ops": [reference()]}, BrowserViewCopy().text)


def random_case(rng: random.Random) -> tuple[dict[str, str], dict[str, Any]]:
    """View texts and a write whose ops the kernel referred to them (appends, sets, a splice inserting a reply)."""
    texts = {f"m{n}": reply_text(rng.randint(0, 900), seed=rng.randint(0, 10**6)) for n in range(rng.randint(1, 4))}
    ops: list[dict[str, Any]] = []
    for index, (message_id, text) in enumerate(texts.items()):
        kind = rng.choice(["append", "set", "splice", "other"])
        path: list[Any] = ["items", "main", "messages", index, "content"]
        if kind == "append" and text:
            cut = rng.randint(0, len(text) - 1)
            ops.append({"op": "append", "path": path, "at": utf16_length(text[:cut]), "text": text[cut:]})
        elif kind == "set":
            ops.append({"op": "set", "path": path, "value": text})
        elif kind == "splice":
            ops.append({"op": "splice", "path": ["items", "main", "messages"], "start": index, "delete": 0,
                        "insert": [{"id": message_id, "role": "assistant", "content": text}]})
        else:
            ops.append({"op": "set", "path": ["items", "main", "updated_at"], "value": "2026-12-01T00:00:00Z"})
    referred = refer_to_view(ops, view_holding(texts).text, lambda: list(reversed(list(texts)))) or ops
    held = dict(texts)
    if rng.random() < 0.3:  # the view lost a character of one text: a write naming it must be refused
        victim = rng.choice(list(texts))
        held[victim] = held[victim][:-1]
    return held, {"kind": "persist", "ops": referred}


def python_resolves(texts: dict[str, str], write: dict[str, Any]) -> Any:
    try:
        return resolve_view_text(write, view_holding(texts).text)["ops"]
    except PatchError:
        return "refused"


RUNNER = """
import { resolveViewText } from %s;
const cases = JSON.parse(await new Promise((resolve) => {
  let text = ""; process.stdin.on("data", (d) => (text += d)); process.stdin.on("end", () => resolve(text));
}));
const out = cases.map(([texts, write]) => {
  try {
    return resolveViewText(write, (id, field) => {
      const text = texts[id];
      if (typeof text !== "string") return null;
      return field === "content" ? text : field === "reasoning_content" ? [...text].reverse().join("") : null;
    }).ops;
  } catch (error) {
    if (error.constructor.name === "PatchMismatch") return "refused";
    throw error;
  }
});
process.stdout.write(JSON.stringify(out));
"""


def test_the_browser_resolves_named_text_exactly_as_the_reference_does() -> None:
    assert NODE is not None, "node runs the widget's own code here: scripts/setup.sh installs it"
    rng = random.Random(17)
    cases = [random_case(rng) for _ in range(300)]
    cases += [({"m1": HELD}, {"kind": "persist", "ops": [op]}) for op in REFUSED.values()]
    expected = [python_resolves(texts, write) for texts, write in cases]
    assert "refused" in expected
    assert any(isinstance(e, list) for e in expected)
    assert any(op.get("op") == "append" and op.get("at") for e in expected if isinstance(e, list) for op in e)
    runner = RUNNER % json.dumps(PERSIST_TEXT_JS.as_uri())
    result = subprocess.run([str(NODE), "--input-type=module", "-e", runner], input=json.dumps(cases),
                            capture_output=True, text=True, encoding="utf-8", check=True, timeout=60)
    assert json.loads(result.stdout) == json.loads(json.dumps(expected))
