"""A chat holding many long conversations: how long it takes to open, and how much reaches the browser.

Run: python benchmarks/conversations_open.py [CONVERSATIONS] [MESSAGES] [--browser]   (default: 20 x 200)
Builds a notebook_chat metadata section of CONVERSATIONS conversations of MESSAGES messages each (users, assistants
with tool calls, tool results, ~300 characters each) under one chat key and prints:
- the size of that metadata (what the .ipynb holds) and of the snapshot the kernel sends when the chat opens (only
  the active conversation's messages plus a list entry per conversation: the others are not sent until opened);
- kernel time to restore it (the browser's "ready" → the engine holds the active conversation) and to switch;
- what the kernel writes to the notebook's metadata (versioned patches): nothing on opening, a small patch on a
  switch or a new conversation, the appended text for a streamed chunk (never the other conversations);
- with --browser: in a real JupyterLab + Chromium, the time from running the chat's cell to the active
  conversation drawn (its last message in the DOM), and after a switch, to the other conversation drawn.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from record_validation import record  # noqa: E402

from notebook_chat import Chat  # noqa: E402
from notebook_chat.persistence.notebook_store import NotebookMetadataStore  # noqa: E402
from notebook_chat.testing import ScriptedProvider  # noqa: E402

KEY = "bench"


def entry(conversations: int, messages: int) -> dict[str, Any]:
    items = {}
    for index in range(conversations):
        made = record(messages)
        made["title"] = f"Conversation {index + 1}"
        made["created_at"] = f"2026-01-{index % 28 + 1:02d}T00:00:00.000Z"
        items[f"c{index:02d}"] = made
    return {"active": f"c{conversations - 1:02d}", "items": items}


def size(value: Any) -> str:
    return f"{len(json.dumps(value, ensure_ascii=False, separators=(',', ':')).encode()) / 1e6:6.2f} MB"


def timed(work: Callable[[], object], repeat: int = 5) -> str:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return f"median {statistics.median(times) * 1000:8.1f} ms, best {min(times) * 1000:8.1f} ms"


def kernel_figures(stored: dict[str, Any]) -> None:
    section = {"version": 2, "conversations": {KEY: stored}}
    count = len(stored["items"])
    print(f"metadata (the notebook's copy):     {size(section)}  ({count} conversations)")

    def restore() -> Chat:
        chat = Chat(ScriptedProvider(), key=KEY, restore_timeout=0)
        asyncio.run(chat.restore(json.loads(json.dumps(stored)), {"notebook": True, "cell_id": KEY}))
        return chat

    chat = restore()
    view = chat.view_state()
    print(f"snapshot sent when the chat opens:  {size(view)}  ({len(view['messages'])} messages drawn, "
          f"{len(view['conversations']['items'])} list entries)")
    print(f"restore (ready -> engine loaded):   {timed(restore)}")
    others = [item["id"] for item in chat.conversations if item["id"] != chat.conversation_id]

    def switch() -> None:
        asyncio.run(chat.switch(others[0]))
        others.append(others.pop(0))

    print(f"switch to another conversation:     {timed(switch)}")
    written_figures(stored)


def written_figures(stored: dict[str, Any]) -> None:
    """What the kernel sends to the browser's copy of the metadata (persist writes, versioned patches)."""
    writes: list[int] = []
    chat = Chat(ScriptedProvider(), key=KEY, restore_timeout=0)
    asyncio.run(chat.restore(json.loads(json.dumps(stored)), {"notebook": True, "cell_id": KEY}))
    store = chat.store
    assert isinstance(store, NotebookMetadataStore)
    send = store._send
    store._send = lambda write: (writes.append(len(json.dumps(write).encode())), send(write))  # type: ignore[method-assign]
    print(f"persist writes on opening:          {len(writes)} ({sum(writes)} bytes)")
    other = next(item["id"] for item in chat.conversations if item["id"] != chat.conversation_id)
    asyncio.run(chat.switch(other))
    print(f"persist writes on a switch:         {len(writes)} ({sum(writes)} bytes)")
    writes.clear()
    chat.new_conversation(title="New")
    print(f"persist writes on New conversation: {len(writes)} ({sum(writes)} bytes)")
    asyncio.run(chat.switch(other))
    writes.clear()
    messages = chat.engine.messages
    last = next(m for m in reversed(messages) if m.get("role") == "assistant" and not m.get("tool_calls"))
    grown = {**last, "content": str(last.get("content") or "") + " and twenty more streamed characters."}
    start = time.perf_counter()
    store.save_messages(KEY, [grown], "2026-02-01T00:00:00.000Z", chat.conversation_id)
    took = (time.perf_counter() - start) * 1000
    print(f"one streamed save (chunk appended): {len(writes)} write, {sum(writes)} bytes, {took:.2f} ms "
          f"(the whole entry is {size(stored).strip()})")


CHAT_CELL = '''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
chat = Chat(ScriptedProvider(), key="bench")
chat
'''


def browser_figures(stored: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    from tests.e2e.lab import Lab, launch_chromium, start_lab_server

    last_drawn = [m["id"] for m in stored["items"][stored["active"]]["messages"] if m["role"] in ("user", "assistant")]
    with tempfile.TemporaryDirectory() as folder:
        server = start_lab_server(Path(folder))
        playwright = sync_playwright().start()
        try:
            browser = launch_chromium(playwright)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.set_default_timeout(120_000)
            lab = Lab(page, server, server.new_folder("bench"), Path(folder) / "artifacts")
            lab.open_notebook("bench.ipynb", [CHAT_CELL], {"notebook_chat": {"version": 2,
                                                                             "conversations": {KEY: stored}}})
            start = time.perf_counter()
            lab.start_cell(0)
            page.locator(f".nbc-message[data-message-id='{last_drawn[-1]}']").wait_for()
            print(f"browser: run the cell -> active conversation drawn: {time.perf_counter() - start:6.2f} s")
            page.locator("[data-action=conversation-list]").click()
            other = stored["items"]["c00"]
            target = [m["id"] for m in other["messages"] if m["role"] in ("user", "assistant")][-1]
            start = time.perf_counter()
            page.locator(".nbc-conversation[data-conversation-id=c00] [data-action=switch-conversation]").click()
            page.locator(f".nbc-message[data-message-id='{target}']").wait_for()
            print(f"browser: switch -> other conversation drawn:       {time.perf_counter() - start:6.2f} s")
            browser.close()
        finally:
            playwright.stop()
            server.stop()


def main(argv: list[str]) -> None:
    numbers = [int(arg) for arg in argv if arg.isdigit()]
    conversations, messages = (numbers + [20, 200][len(numbers):])[:2]
    stored = entry(conversations, messages)
    print(f"{conversations} conversations x {messages} messages")
    kernel_figures(stored)
    if "--browser" in argv:
        browser_figures(stored)


if __name__ == "__main__":
    main(sys.argv[1:])
