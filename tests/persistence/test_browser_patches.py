"""The browser's applier (js/widget/src/patches.js, run in node) turns the kernel's writes into the same entry as
the reference applier, for random save sequences; and it refuses a stale or ill-fitting patch leaving nothing
changed."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

from notebook_chat.persistence import PersistenceError, RecordError
from notebook_chat.persistence.notebook_store import NotebookMetadataStore

from .test_notebook_store import Browser
from .test_patch_sequences import ChatModel, Conversation

PATCHES_JS = Path(__file__).resolve().parents[2] / "js" / "widget" / "src" / "patches.js"
NODE = shutil.which("node")

RUNNER = """
import { applyWrite, StaleCopy, PatchMismatch } from %s;
const cases = JSON.parse(await new Promise((resolve) => {
  let text = ""; process.stdin.on("data", (d) => (text += d)); process.stdin.on("end", () => resolve(text));
}));
const out = cases.map(({ entry, writes }) => {
  try {
    for (const write of writes) entry = applyWrite(entry, write);
    return { entry };
  } catch (err) {
    return { refused: err instanceof StaleCopy ? "stale" : err instanceof PatchMismatch ? "mismatch" : String(err) };
  }
});
process.stdout.write(JSON.stringify(out));
"""


def run_in_node(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    assert NODE is not None, "node is needed: scripts/setup.sh installs it (the widget's build)"
    script = RUNNER % json.dumps(PATCHES_JS.as_uri())
    done = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(cases), text=True,
                          capture_output=True, check=True, timeout=60)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


STEPS = ["append", "grow", "stream", "rewrite", "insert", "remove", "state", "turn", "pause", "forget"]


def random_step(rng: random.Random) -> tuple[Any, ...]:
    kind = rng.choice(STEPS)
    text = "".join(rng.choice(["a", " ", "é", "😀", "中", "\n"]) for _ in range(rng.randint(0, 30)))
    index = rng.randint(0, 40)
    return {"append": (kind, rng.choice(["user", "assistant"]), text), "grow": (kind, index, text),
            "stream": (kind, text), "rewrite": (kind, index, text), "insert": (kind, index, text),
            "remove": (kind, index), "state": (kind, index, "thinking"), "turn": (kind, rng.random() < 0.5),
            "pause": (kind, rng.random() < 0.5), "forget": (kind,)}[kind]


def writes_of_a_random_session(seed: int) -> tuple[list[dict[str, Any]], Any]:
    rng = random.Random(seed)
    browser = Browser()
    store = NotebookMetadataStore(browser)
    conversation = Conversation()
    store.save("k", conversation.record)
    for _ in range(30):
        step = random_step(rng)
        if step[0] == "forget":
            store.forget_front_end_copy("k")
            continue
        conversation.change(step)
        record = conversation.record
        if step[0] == "stream" and record["messages"] and record["messages"][-1]["role"] == "assistant":
            record["messages"][-1]["content"] = str(record["messages"][-1].get("content") or "") + step[1] * 5
            if store.save_messages("k", [record["messages"][-1]], record["updated_at"]):
                continue
        try:
            store.save("k", record)
        except (PersistenceError, RecordError):  # pragma: no cover - the steps here make valid records
            raise
    return browser.writes, browser.entries["k"]


def test_the_browser_applies_random_write_sequences_to_the_same_entry_as_the_reference() -> None:
    sessions = [writes_of_a_random_session(seed) for seed in range(40)]
    results = run_in_node([{"entry": None, "writes": writes} for writes, _ in sessions])
    for (writes, expected), result in zip(sessions, results, strict=True):
        assert any(op["op"] in ("append", "splice") for write in writes for op in write["ops"])
        assert result == {"entry": expected}


CHAT_STEPS = ["new", "switch", "delete", "rename", "append", "grow", "stream", "turn", "pause", "forget"]


def writes_of_a_random_chat(seed: int) -> tuple[list[dict[str, Any]], Any]:
    """A chat's saves across several conversations: new, switch, delete and rename interleaved with edits."""
    rng = random.Random(seed)
    browser = Browser()
    chat = ChatModel(NotebookMetadataStore(browser))
    for _ in range(40):
        kind = rng.choice(CHAT_STEPS)
        if kind in ("new", "forget"):
            chat.step((kind,))
        elif kind in ("switch", "delete"):
            chat.step((kind, rng.randint(0, 9)))
        elif kind == "rename":
            chat.step((kind, rng.randint(0, 9), rng.choice(["Plots", "Überblick 😀", "中文"])))
        else:
            chat.step(random_step_of(rng, kind))
    return browser.writes, browser.entries["k"]


def random_step_of(rng: random.Random, kind: str) -> tuple[Any, ...]:
    while True:
        step = random_step(rng)
        if step[0] == kind:
            return step


def test_the_browser_applies_random_writes_across_conversations_to_the_same_entry_as_the_reference() -> None:
    sessions = [writes_of_a_random_chat(seed) for seed in range(40)]
    results = run_in_node([{"entry": None, "writes": writes} for writes, _ in sessions])
    paths = [op["path"] for writes, _ in sessions for write in writes if write["base"] is not None
             for op in write["ops"]]
    assert ["active"] in paths  # switches went as patches
    assert any(path[:1] == ["items"] and len(path) == 2 for path in paths)  # new / deleted conversations too
    for (_, expected), result in zip(sessions, results, strict=True):
        assert result == {"entry": expected}


def test_the_browser_refuses_a_patch_for_another_revision_or_one_that_does_not_fit() -> None:
    record = {"version": 1, "messages": [{"id": "m1", "role": "user", "content": "hi"}]}
    entry = {"active": "a", "items": {"a": record}, "revision": "r-1"}
    stale = {"revision": "r-2", "base": "r-0", "ops": []}
    short = {"revision": "r-2", "base": "r-1", "ops": [
        {"op": "append", "path": ["items", "a", "messages", 0, "content"], "at": 5, "text": "!"}]}
    missing = {"revision": "r-2", "base": "r-1", "ops": [
        {"op": "set", "path": ["items", "a", "messages", 7, "content"], "value": "x"}]}
    results = run_in_node([{"entry": entry, "writes": [write]} for write in (stale, short, missing)])
    assert results == [{"refused": "stale"}, {"refused": "mismatch"}, {"refused": "mismatch"}]
