"""Streams N small chunks through MessageEngine (default plugins) and compares with a bare concatenating loop.

Run: python benchmarks/engine_stream.py [N ...]   (default: 10000 100000)
Prints µs per chunk for the engine and for the bare loop, their ratio, and the per-chunk cost of the last 10% of the
stream against the first 10% (it must not grow with the reply's length).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from notebook_chat.engine import CancelHandle, MessageEngine

PIECE = "abc "


def chunk(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


class TimedStream:
    """Yields prebuilt chunks and timestamps each tenth of the stream."""

    def __init__(self, count: int) -> None:
        self.chunks = [chunk(PIECE) for _ in range(count)] + [
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        self.marks: list[float] = []

    async def __call__(self, body: dict[str, Any], cancel: CancelHandle) -> AsyncIterator[dict[str, Any]]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[dict[str, Any]]:
        tenth = max(1, (len(self.chunks) - 1) // 10)
        for number, item in enumerate(self.chunks):
            if number % tenth == 0:
                self.marks.append(time.perf_counter())
            yield item
        self.marks.append(time.perf_counter())


async def bare_loop(count: int) -> float:
    stream = TimedStream(count)
    start = time.perf_counter()
    parts: list[str] = []
    async for item in await stream({}, CancelHandle()):
        text = item["choices"][0]["delta"].get("content")
        if text:
            parts.append(text)
    "".join(parts)
    return time.perf_counter() - start


async def engine_run(count: int) -> tuple[float, float, float]:
    stream = TimedStream(count)
    engine = MessageEngine(stream)
    events = 0

    def on_event(event: Any) -> None:
        nonlocal events
        events += 1

    engine.subscribe(on_event)
    start = time.perf_counter()
    await engine.send_message("go")
    elapsed = time.perf_counter() - start
    assert engine.messages[-1]["content"] == PIECE * count
    marks = stream.marks
    first, last = marks[1] - marks[0], marks[10] - marks[9]
    return elapsed, first, last


async def main(counts: list[int]) -> None:
    print(f"{'chunks':>8} {'engine µs/chunk':>16} {'bare µs/chunk':>14} {'ratio':>6} {'last10%/first10%':>17}")
    for count in counts:
        bare = min([await bare_loop(count) for _ in range(3)])
        runs = [await engine_run(count) for _ in range(3)]
        elapsed, first, last = min(runs)
        print(f"{count:>8} {elapsed / count * 1e6:>16.2f} {bare / count * 1e6:>14.2f} {elapsed / bare:>6.1f} "
              f"{last / first:>17.2f}")


if __name__ == "__main__":
    asyncio.run(main([int(a) for a in sys.argv[1:]] or [10_000, 100_000]))
