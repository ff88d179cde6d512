"""Snapshots that cost what changed: after every flush of random change sequences the browser's copy of the view —
built from the whole snapshot, the view patches and the deltas — equals the kernel's view (its window of the
messages, grown when the browser asks for older ones), in the reference
(``view_copy.BrowserViewCopy``) and in the browser's own code (``js/widget/src/view_copy.js``, run in node); a patch
for another revision makes the browser ask for the whole view, which the kernel sends."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

from notebook_chat.widget.view_copy import RESYNC, BrowserViewCopy
from notebook_chat.widget.view_stream import ViewStream

from .widget_doubles import InMemoryController

VIEW_COPY_JS = Path(__file__).resolve().parents[2] / "js" / "widget" / "src" / "view_copy.js"
NODE = shutil.which("node")

RUNNER = """
import { ViewCopy, RESYNC } from %s;
const sessions = JSON.parse(await new Promise((resolve) => {
  let text = ""; process.stdin.on("data", (d) => (text += d)); process.stdin.on("end", () => resolve(text));
}));
const out = sessions.map((batches) => {
  const copy = new ViewCopy();
  return batches.map((batch) => {
    let resync = false;
    for (const msg of batch) if (copy.take(msg) === RESYNC) resync = true;
    return { view: structuredClone(copy.view), resync };
  });
});
process.stdout.write(JSON.stringify(out));
"""

TEXTS = ["a", " ", "é", "😀", "中", "\n", "word "]
STEPS = ["add", "insert", "remove", "stream", "reason", "args", "rewrite", "status", "call", "display", "switch",
         "ready", "older", "nothing"]


def text(rng: random.Random, most: int = 12) -> str:
    return "".join(rng.choice(TEXTS) for _ in range(rng.randint(0, most)))


def message(rng: random.Random, number: int) -> dict[str, Any]:
    view: dict[str, Any] = {"id": f"m{number}", "role": rng.choice(["user", "assistant"]), "content": text(rng),
                            "hidden": False, "loading": rng.random() < 0.3}
    if view["role"] == "assistant" and rng.random() < 0.4:
        view["tool_calls"] = [{"id": f"c{number}_{i}", "name": "lookup", "arguments": "", "status": "running"}
                              for i in range(rng.randint(1, 2))]
    return view


class Session:
    """A controller changed at random, its stream, and what each flush sent."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.count = 0
        self.controller = InMemoryController([self.new() for _ in range(self.rng.randint(0, 12))])
        self.sent: list[dict[str, Any]] = []
        # small windows, so that the browsers hold a window of the messages and ask for older ones
        self.stream = ViewStream(self.sent.append, self.controller, interval=3600,
                                 first_window=self.rng.randint(1, 5), older_chunk=self.rng.randint(1, 3))
        self.controller.subscribe(self.stream.on_event)
        self.stream.send_snapshot(whole=True)
        self.batches: list[list[dict[str, Any]]] = [list(self.sent)]
        self.recorded = len(self.sent)
        self.expected: list[Any] = [self.view()]

    def new(self) -> dict[str, Any]:
        self.count += 1
        return message(self.rng, self.count)

    def view(self) -> Any:
        """The view the browsers should hold: the whole view, its messages from the stream's window on."""
        view = json.loads(json.dumps(self.controller.view_state()))
        held = self.stream.held
        return {**view, "messages": view["messages"][held:], "older": held} if held else view

    def pick(self) -> dict[str, Any] | None:
        messages = self.controller.messages
        return self.rng.choice(messages) if messages else None

    def step(self) -> None:
        rng, controller, kind = self.rng, self.controller, self.rng.choice(STEPS)
        target = self.pick()
        if kind == "add":
            controller.add(self.new())
        elif kind == "insert":
            controller.messages.insert(rng.randint(0, len(controller.messages)), self.new())
            controller.emit("state")
        elif kind == "remove" and target is not None:
            controller.messages.remove(target)
            controller.emit("state")
        elif kind in ("stream", "reason") and target is not None:
            for _ in range(rng.randint(1, 4)):
                controller.append(target["id"], text(rng, 30) or "x",
                                  field="content" if kind == "stream" else "reasoning_content")
        elif kind == "args" and target is not None and target.get("tool_calls"):
            call = rng.choice(target["tool_calls"])
            call["arguments"] += text(rng, 20) or "{"
            controller.emit("message", target["id"])
        elif kind == "rewrite" and target is not None:
            target["content"] = target["content"][: rng.randint(0, len(target["content"]))] + text(rng, 3)
            controller.emit("message", target["id"])
        elif kind == "status":
            controller.set_request_state(rng.choice(["idle", "processing", "paused", "completed"]))
        elif kind == "call" and target is not None and target.get("tool_calls"):
            call = rng.choice(target["tool_calls"])
            call["status"] = rng.choice(["success", "failed", "awaiting-approval"])
            call["result"] = text(rng, 40)
            controller.emit("state")
        elif kind == "display" and target is not None and target.get("tool_calls"):
            call = rng.choice(target["tool_calls"])
            call["display"] = [{"mime": "image/png", "data": "iVBORw0KGgo" + text(rng, 60)}]
            controller.emit("state")
        elif kind == "switch":
            controller.messages[:] = [self.new() for _ in range(rng.randint(0, 4))]
            controller.emit("state")
        elif kind == "ready":
            self.stream.send_snapshot(whole=True)
        elif kind == "older" and self.expected[-1].get("older") and self.expected[-1]["messages"]:
            # the browser asks for the messages before the first of the window it holds
            self.stream.show_older(self.expected[-1]["messages"][0]["id"])
        if rng.random() < 0.6:
            self.flush()

    def flush(self) -> None:
        self.stream.flush()
        self.batches.append(self.sent[self.recorded:])
        self.recorded = len(self.sent)
        self.expected.append(self.view())

    def run(self, steps: int) -> Session:
        for _ in range(steps):
            self.step()
        self.flush()
        return self


def sessions() -> list[Session]:
    return [Session(seed).run(40) for seed in range(40)]


def test_after_every_flush_the_browsers_copy_equals_the_whole_view() -> None:
    kinds: set[str] = set()
    for session in sessions():
        copy = BrowserViewCopy()
        for batch, expected in zip(session.batches, session.expected, strict=True):
            for sent in batch:
                kinds.add(sent["kind"])
                assert copy.take(json.loads(json.dumps(sent))) != RESYNC
            assert copy.view == expected
    assert kinds == {"snapshot", "view_patch", "delta"}


def test_the_browsers_own_code_builds_the_same_copy_after_every_flush() -> None:
    assert NODE is not None, "node is needed: scripts/setup.sh installs it (the widget's build)"
    runs = sessions()
    script = RUNNER % json.dumps(VIEW_COPY_JS.as_uri())
    done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, check=True,
                          input=json.dumps([session.batches for session in runs]), timeout=120)
    for session, results in zip(runs, json.loads(done.stdout), strict=True):
        assert [result["view"] for result in results] == session.expected
        assert not any(result["resync"] for result in results)


def test_a_patch_for_another_revision_drops_the_copy_and_asks_for_the_whole_view() -> None:
    controller = InMemoryController([{"id": "m1", "role": "user", "content": "hi", "hidden": False, "loading": False}])
    sent: list[dict[str, Any]] = []
    stream = ViewStream(sent.append, controller, interval=3600)
    stream.send_snapshot(whole=True)
    controller.messages[0]["content"] = "hello"
    stream.send_snapshot()
    controller.messages[0]["content"] = "hello there"
    stream.send_snapshot()
    copy = BrowserViewCopy()
    copy.take(sent[0])

    assert [m["kind"] for m in sent] == ["snapshot", "view_patch", "view_patch"]
    assert copy.take(sent[2]) == RESYNC  # it missed the patch to revision 2
    assert copy.view is None
    assert copy.take(sent[1]) is None  # without a copy it waits for the whole view


def test_a_patch_whose_ops_do_not_fit_the_copy_drops_it_and_asks_for_the_whole_view() -> None:
    copy = BrowserViewCopy()
    copy.take({"kind": "snapshot", "revision": 1, "view": {"messages": [{"id": "m1", "content": "hi"}]}})
    ill_fitting = {"kind": "view_patch", "base": 1, "revision": 2,
                   "ops": [{"op": "append", "path": ["messages", 0, "content"], "at": 7, "text": "!"}]}

    assert copy.take(ill_fitting) == RESYNC
    assert copy.view is None


def test_a_state_change_that_changes_nothing_shown_sends_nothing() -> None:
    controller = InMemoryController([{"id": "m1", "role": "user", "content": "hi", "hidden": False, "loading": False}])
    sent: list[dict[str, Any]] = []
    stream = ViewStream(sent.append, controller, interval=3600)
    stream.send_snapshot(whole=True)
    controller.emit("state")
    stream.flush()

    assert [m["kind"] for m in sent] == ["snapshot"]
