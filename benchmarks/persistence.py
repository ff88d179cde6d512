"""Kernel-side persistence costs at 100 / 1,000 / 5,000 messages (issue 17's kernel targets).

Run: python benchmarks/persistence.py [N ...]   (default: 10 100 1000 5000)
For a stored conversation of N messages (users, assistants with tool calls, tool results, ~300 characters each) it
prints the median and best kernel CPU time (the process's CPU time, garbage collected before each run: on a shared
machine wall-clock figures mostly measure the neighbours) of:
  read_record        validating the untrusted record the browser hands over (target at 1,000: <= 15 ms)
  Chat from record   building a Chat and restoring the record into it, as a displayed chat does (<= 25 ms)
  streaming autosave one throttled save while a reply streams into the conversation (<= 2 ms at any N)
  boundary autosave  one save at a turn boundary (a user message added: checked, packed, diffed, sent with the
                     transcript); what grows with N runs at C speed (one deep comparison of the settled messages
                     with their copy, a count of the messages the transcript shows): a few ms at 5,000
  whole turn         a turn of a displayed chat on the kernel's loop (send, streamed reply, its boundaries, view
                     patches and notebook writes), per turn; it grows with N, as the request does: the whole history
                     is prepared for the provider (history rules, context budget) at each request
  view of a turn     the part of that turn the view stream spends (snapshots, view patches, deltas): the latest
                     turn's views plus one deep comparison of the settled messages per snapshot (C speed, ~1 ms
                     at 5,000 on a quiet machine), the only part that grows with N
and the bytes kernel->browser per streaming save and for displaying the unchanged chat. No kernel, no browser: the
widget's outgoing messages are captured where they would go to the comm.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_validation import record

from notebook_chat import Chat
from notebook_chat.engine import EngineEvent
from notebook_chat.persistence import read_record
from notebook_chat.providers import DemoModel

TARGETS = {"read_record": 15.0, "chat_from_record": 25.0, "streaming_autosave": 2.0}
NAMES = ("read_record", "chat_from_record", "streaming_autosave", "boundary_autosave", "whole_turn", "view_of_a_turn")


def timed(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, best) of `repeat` runs, in ms of this process's CPU time; the best is the figure to compare on a
    busy machine."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000, min(times) * 1000


def displayed_chat(data: dict[str, Any]) -> tuple[Chat, list[dict[str, Any]]]:
    """A Chat restored from `data` (a fresh parse, as the comm delivers it: the parse itself is not timed) as the
    browser's "ready" does; returns it and the list its widget posts to."""
    chat = Chat(DemoModel(), key="cell-1", restore_timeout=0)
    posted: list[dict[str, Any]] = []
    chat.widget._post = posted.append  # type: ignore[method-assign]
    asyncio.run(chat.restore(data, {"notebook": True, "cell_id": "cell-1"}))
    return chat, posted


def persist_bytes(posted: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(m)) for m in posted if m.get("kind") == "persist")


def measure(count: int) -> dict[str, Any]:
    data = record(count)
    repeat = 30 if count <= 1000 else 8
    figures: dict[str, Any] = {"messages": count, "record_kb": len(json.dumps(data)) // 1000}
    copies = [json.loads(json.dumps(data)) for _ in range(repeat)]
    figures["read_record"] = timed(lambda: read_record(copies.pop()), repeat)
    parsed = [json.loads(json.dumps(data)) for _ in range(repeat)]
    figures["chat_from_record"] = timed(lambda: displayed_chat(parsed.pop()), repeat)

    chat, posted = displayed_chat(json.loads(json.dumps(data)))
    figures["display_persist_bytes"] = persist_bytes(posted)
    engine = chat.engine
    reply: dict[str, Any] = {"id": "msg_streaming", "role": "assistant", "content": "Start.", "loading": True,
                             "state": {"turn_id": "turn_x"}}
    boundaries = iter(range(1_000_000))

    def boundary() -> None:  # a turn starts: the user message is saved at once
        engine.append_message({"id": f"msg_b{next(boundaries)}", "role": "user", "content": "Next question."})

    figures["boundary_autosave"] = timed(boundary, 15)
    posted.clear()
    engine.append_message(reply)

    def stream_save() -> None:
        reply["content"] += " The next sentence of a long reply arrives in the stream." * 4
        engine._emit(EngineEvent("message", "msg_streaming", "content", "..."))  # no loop: the autosave saves now

    figures["streaming_autosave"] = timed(stream_save, repeat * 3)
    figures["streaming_persist_bytes"] = persist_bytes(posted) // max(1, len(posted))
    engine.state.messages.remove(reply)
    figures["whole_turn"], figures["view_of_a_turn"] = whole_turns(json.loads(json.dumps(data)), 8)
    return figures


async def streamed_reply(body: dict[str, Any], cancel: object) -> Any:
    """A provider that streams a 10-chunk reply and keeps nothing (a test double that records each request body
    would add a copy of the whole history per turn to the figure)."""

    async def chunks() -> Any:
        for _ in range(10):
            yield {"choices": [{"index": 0, "delta": {"content": "a streamed sentence. " * 2}}]}
        yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}

    return chunks()


class ViewClock:
    """The CPU time a chat's view stream spends (snapshots, view patches and deltas: the view part of a turn)."""

    def __init__(self, chat: Chat) -> None:
        self.spent = 0.0
        self._depth = 0
        stream = chat.widget._stream
        for name in ("flush", "send_snapshot"):
            setattr(stream, name, self._timed(getattr(stream, name)))

    def _timed(self, work: Callable[..., None]) -> Callable[..., None]:
        def run(*args: Any, **kwargs: Any) -> None:
            self._depth += 1
            start = time.process_time()
            try:
                work(*args, **kwargs)
            finally:
                self._depth -= 1
                if not self._depth:
                    self.spent += time.process_time() - start
        return run


def whole_turns(data: dict[str, Any], turns: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """(median, best) CPU ms per turn of a chat restored from `data`, each turn run on the loop to its end, and the
    same for the view part of each turn."""
    provider = streamed_reply

    async def run() -> tuple[list[float], list[float]]:
        chat = Chat(provider, key="cell-1", restore_timeout=0)
        chat.widget._post = lambda message: None  # type: ignore[method-assign]
        await chat.restore(data, {"notebook": True, "cell_id": "cell-1"})
        await chat.send("warm up")
        clock = ViewClock(chat)
        times, views = [], []
        for number in range(turns):
            gc.collect()
            clock.spent = 0.0
            start = time.process_time()
            await chat.send(f"question {number}")
            chat.widget.flush()
            times.append(time.process_time() - start)
            views.append(clock.spent)
        return times, views

    times, views = asyncio.run(run())
    return ((statistics.median(times) * 1000, min(times) * 1000),
            (statistics.median(views) * 1000, min(views) * 1000))


def main(counts: list[int]) -> None:
    print("notebook_chat kernel persistence (ms of kernel CPU: median / best of the runs)")
    for count in counts:
        f = measure(count)
        print(f"{f['messages']:>5} messages ({f['record_kb']} kB of JSON)")
        for name in NAMES:
            median, best = f[name]
            target = TARGETS.get(name)
            note = f"   target <= {target:g} ms at 1,000" if target and name != "streaming_autosave" else ""
            if name == "streaming_autosave":
                note = f"   target <= {target:g} ms at any length"
            print(f"  {name:<20} median {median:8.2f}  best {best:8.2f}{note}")
        print(f"  {'persist bytes':<20} on display of the unchanged chat: {f['display_persist_bytes']:,}; "
              f"per streaming save: {f['streaming_persist_bytes']:,}")


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [10, 100, 1000, 5000])
