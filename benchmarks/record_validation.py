"""Times the validation of a stored conversation: load (untrusted record → engine) and one autosave.

Run: python benchmarks/record_validation.py [N]   (default: 1000 messages)
Builds a record of N messages (users, assistants with tool calls, tool results, ~300 characters each), then prints
the median and best time of reading it (``read_record``), of one ``MemoryStore.save`` and of one autosave
(``export_record`` + save).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from notebook_chat.engine import MessageEngine
from notebook_chat.persistence import MemoryStore, read_record

TEXT = "The quarterly figures look steady; revenue grew in every region except the north. " * 4


def record(count: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"id": "msg_sys", "role": "system", "content": "Be brief."}]
    turns = []
    index = 0
    while len(messages) < count:
        turn = f"turn_{index}"
        call = f"call_{index}"
        messages += [
            {"id": f"msg_u{index}", "role": "user", "content": TEXT},
            {"id": f"msg_a{index}", "role": "assistant", "content": None,
             "tool_calls": [{"id": call, "type": "function",
                             "function": {"name": "lookup", "arguments": json.dumps({"q": TEXT[:40]})}}],
             "state": {"turn_id": turn, "tool_calls": {call: {"status": "success"}}}},
            {"id": f"msg_t{index}", "role": "tool", "tool_call_id": call, "content": TEXT,
             "metadata": {"tool_name": "lookup"}},
            {"id": f"msg_r{index}", "role": "assistant", "content": TEXT, "state": {"turn_id": turn}},
        ]
        turns.append({"id": turn, "started_at": "2026-01-01T00:00:00.000Z", "ended_at": "2026-01-01T00:00:01.000Z",
                      "end_reason": "completed", "detail": None})
        index += 1
    return {"version": 1, "messages": messages[:count], "turns": turns, "paused_turn": None,
            "updated_at": "2026-01-01T00:00:02.000Z"}


def timed(work: Callable[[], object], repeat: int = 30) -> str:
    """Median and best of `repeat` runs, in ms (the best is the figure to compare on a busy machine)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return f"median {statistics.median(times) * 1000:7.2f} ms, best {min(times) * 1000:7.2f} ms"


def main(count: int) -> None:
    data = record(count)
    loaded = read_record(data)
    assert loaded.record is not None, loaded.refused
    store = MemoryStore()
    engine = MessageEngine(lambda body, cancel: None)  # type: ignore[arg-type,return-value]
    engine.load(loaded.record)
    print(f"{count} messages, {len(json.dumps(data)) // 1000} kB of JSON")
    print(f"  read_record (validate an untrusted record): {timed(lambda: read_record(data))}")
    print(f"  MemoryStore.save (validate for saving):     {timed(lambda: store.save('k', data))}")
    print(f"  autosave (export_record + save):            "
          f"{timed(lambda: store.save('k', engine.export_record()))}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
